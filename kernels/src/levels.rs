//! Optimizer option sets and the thesis's optimization levels (Sec. 6.2.2).

/// The optimizer options a kernel function was compiled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opts {
    /// No options: the baseline translation.
    None,
    /// `shared, unroll`.
    Shared,
    /// `register, unroll`.
    Register,
    /// `shared, register, unroll`.
    SharedRegister,
    /// `shared, register, prefer_l1, unroll`.
    SharedRegisterL1,
    /// `shared, register, pipeline, unroll`.
    SharedRegisterPipeline,
    /// `vectorize, unroll`.
    Vector,
    /// `vectorize, pipeline, unroll`: the x and y neighbours from shared-memory rings.
    VectorPipeline,
    /// `tune, unroll`: the autotuner picks the options, `tile` and `chunksize` at the
    /// first launch on a GPU (`mint::tune`); on the CPU, the baseline.
    Tune,
}

impl Opts {
    /// The name of the kernel function compiled with these options (`option_sets!`).
    pub fn function(self) -> &'static str {
        match self {
            Opts::None => "k_none",
            Opts::Shared => "k_shared",
            Opts::Register => "k_register",
            Opts::SharedRegister => "k_shared_register",
            Opts::SharedRegisterL1 => "k_shared_register_l1",
            Opts::SharedRegisterPipeline => "k_shared_register_pipeline",
            Opts::Vector => "k_vector",
            Opts::VectorPipeline => "k_vector_pipeline",
            Opts::Tune => "k_tune",
        }
    }

    /// The option set of an autotuner candidate's options, if the suite compiles one
    /// (`unroll` and the shared-memory plane count aside; none with `swizzle` or `roll_z`,
    /// which the suite's kernels do not take: the `tune` level's search tries them).
    pub fn of(o: &mint::tune::OptOptions) -> Option<Opts> {
        if o.swizzle || o.roll_z {
            return None;
        }
        Some(
            match (
                o.register,
                o.shared > 0,
                o.prefer_l1,
                o.vectorize,
                o.pipeline,
            ) {
                (false, false, false, false, false) => Opts::None,
                (true, false, false, false, false) => Opts::Register,
                (false, true, false, false, false) => Opts::Shared,
                (true, true, false, false, false) => Opts::SharedRegister,
                (true, true, true, false, false) => Opts::SharedRegisterL1,
                (true, true, false, false, true) => Opts::SharedRegisterPipeline,
                (false, false, false, true, false) => Opts::Vector,
                (false, false, false, true, true) => Opts::VectorPipeline,
                _ => return None,
            },
        )
    }
}

/// An optimization level: options plus `tile` and `chunksize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Every reference through device memory; `tile(32, 8, 1)`.
    Baseline,
    /// opt-1: `shared`; `tile(32, 8, 1)`.
    Opt1,
    /// opt-2: `shared` plus `chunksize` 64 in z (the sliding window); `tile(32, 8, 64)`.
    Opt2,
    /// opt-3: opt-2 plus `register`.
    Opt3,
    /// `register` alone; `tile(32, 8, 1)`.
    Register,
    /// opt-3 with `prefer_l1`.
    Opt3L1,
    /// opt-3 with 4 rows per thread along y (the thesis's "all-opt"); `tile(32, 16, 64)`,
    /// `chunksize(1, 4, 64)`.
    Opt3Y,
    /// Beyond the thesis: opt-3+y with `pipeline` (the planes copied into shared memory
    /// with `cp.async`, two ahead); `tile(32, 16, 64)`, `chunksize(1, 4, 64)`.
    Opt3P,
    /// Beyond the thesis: `vectorize` (16-byte loads, 16 bytes of x points per thread);
    /// `tile(128, 4, 1)`.
    Vector,
    /// `vectorize` with `chunksize` 4 in z (the z column of each row in a register queue
    /// of vectors); `tile(128, 4, 4)`, `chunksize(1, 1, 4)`.
    VectorZ,
    /// `vectorize` with `pipeline`: the z queue in registers, the x and y neighbours from
    /// shared-memory rings that `cp.async` fills ahead; `tile(32, 16, 32)`,
    /// `chunksize(1, 1, 32)`.
    VectorP,
    /// `tune` with the default clauses (`tile(16, 16, 1)`, Sec. 3.3.2): the autotuner's
    /// choice (`mint::tune`).
    Tuned,
}

impl Level {
    pub const ALL: [Level; 12] = [
        Level::Baseline,
        Level::Opt1,
        Level::Opt2,
        Level::Opt3,
        Level::Register,
        Level::Opt3L1,
        Level::Opt3Y,
        Level::Opt3P,
        Level::Vector,
        Level::VectorZ,
        Level::VectorP,
        Level::Tuned,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Level::Baseline => "baseline",
            Level::Opt1 => "opt-1",
            Level::Opt2 => "opt-2",
            Level::Opt3 => "opt-3",
            Level::Register => "register",
            Level::Opt3L1 => "opt-3+L1",
            Level::Opt3Y => "opt-3+y",
            Level::Opt3P => "opt-3+pipeline",
            Level::Vector => "vector",
            Level::VectorZ => "vector+z",
            Level::VectorP => "vector+pipeline",
            Level::Tuned => "tune",
        }
    }

    /// Parses a level name as [`Level::name`] prints it.
    pub fn parse(s: &str) -> Option<Level> {
        Level::ALL.iter().copied().find(|l| l.name() == s)
    }

    pub fn opts(self) -> Opts {
        match self {
            Level::Baseline => Opts::None,
            Level::Opt1 | Level::Opt2 => Opts::Shared,
            Level::Register => Opts::Register,
            Level::Opt3 | Level::Opt3Y => Opts::SharedRegister,
            Level::Opt3L1 => Opts::SharedRegisterL1,
            Level::Opt3P => Opts::SharedRegisterPipeline,
            Level::Vector | Level::VectorZ => Opts::Vector,
            Level::VectorP => Opts::VectorPipeline,
            Level::Tuned => Opts::Tune,
        }
    }

    /// `tile` and `chunksize` (x, y, z) for a kernel of `dims` dimensions.
    pub fn config(self, dims: usize) -> ([u32; 3], [u32; 3]) {
        let (t, c) = match self {
            Level::Baseline | Level::Opt1 | Level::Register => ([32, 8, 1], [1, 1, 1]),
            Level::Opt2 | Level::Opt3 | Level::Opt3L1 => ([32, 8, 64], [1, 1, 64]),
            Level::Opt3Y | Level::Opt3P => ([32, 16, 64], [1, 4, 64]),
            Level::Vector => ([128, 4, 1], [1, 1, 1]),
            Level::VectorZ => ([128, 4, 4], [1, 1, 4]),
            Level::VectorP => ([32, 16, 32], [1, 1, 32]),
            Level::Tuned => ([16, 16, 1], [1, 1, 1]),
        };
        if dims == 2 {
            ([t[0], t[1], 1], [c[0], c[1], 1])
        } else {
            (t, c)
        }
    }
}

/// Stamps out kernel function `$k!($t, name, [options])` once per option set.
macro_rules! option_sets {
    ($k:ident, $t:ident $(, $extra:tt)*) => {
        $k!($t, k_none, [] $(, $extra)*);
        $k!($t, k_shared, [shared, unroll] $(, $extra)*);
        $k!($t, k_register, [register, unroll] $(, $extra)*);
        $k!($t, k_shared_register, [shared, register, unroll] $(, $extra)*);
        $k!($t, k_shared_register_l1, [shared, register, prefer_l1, unroll] $(, $extra)*);
        $k!($t, k_shared_register_pipeline, [shared, register, pipeline, unroll] $(, $extra)*);
        $k!($t, k_vector, [vectorize, unroll] $(, $extra)*);
        $k!($t, k_vector_pipeline, [vectorize, pipeline, unroll] $(, $extra)*);
        $k!($t, k_tune, [tune, unroll] $(, $extra)*);
    };
}

/// Calls the function compiled with `$opts`.
macro_rules! dispatch {
    ($opts:expr, $($arg:expr),* $(,)?) => {
        match $opts {
            $crate::Opts::None => k_none($($arg),*),
            $crate::Opts::Shared => k_shared($($arg),*),
            $crate::Opts::Register => k_register($($arg),*),
            $crate::Opts::SharedRegister => k_shared_register($($arg),*),
            $crate::Opts::SharedRegisterL1 => k_shared_register_l1($($arg),*),
            $crate::Opts::SharedRegisterPipeline => k_shared_register_pipeline($($arg),*),
            $crate::Opts::Vector => k_vector($($arg),*),
            $crate::Opts::VectorPipeline => k_vector_pipeline($($arg),*),
            $crate::Opts::Tune => k_tune($($arg),*),
        }
    };
}
