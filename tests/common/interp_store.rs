//! The interpreter running a kernel on one emulated device's views (`cpu:N`), as the CPU
//! backend's generated code runs it: for the fuzz tests of decompositions.

use mint::__rt::cpu::CpuDev;
use mint_testing::interp::{Store, Value};
use mint_translator::ir::ScalarTy;

/// Element types of the generated cases, as host values.
pub trait El: mint::__rt::Element + Copy + Send + Sync + 'static {
    fn to_value(self) -> Value;
    fn from_value(v: Value) -> Self;
}
impl El for f64 {
    fn to_value(self) -> Value {
        Value::F64(self)
    }
    fn from_value(v: Value) -> f64 {
        v.as_f64()
    }
}
impl El for f32 {
    fn to_value(self) -> Value {
        Value::F32(self)
    }
    fn from_value(v: Value) -> f32 {
        v.as_f64() as f32
    }
}
impl El for i32 {
    fn to_value(self) -> Value {
        Value::Int(self as i128, ScalarTy::I32)
    }
    fn from_value(v: Value) -> i32 {
        match v {
            Value::Int(x, _) => x as i32,
            other => other.as_f64() as i32,
        }
    }
}

/// One emulated device's views of the kernel's arrays, for the interpreter.
pub struct DevStore<'a, T: El, const N: usize> {
    pub dev: &'a CpuDev<'a>,
    pub views: Vec<mint::__rt::cpu::CpuView<'a, T, N>>,
    pub elem: ScalarTy,
}

impl<T: El, const N: usize> Store for DevStore<'_, T, N> {
    fn load(&mut self, a: usize, index: &[usize]) -> Result<Value, String> {
        let i: [usize; N] = index.try_into().map_err(|_| "rank".to_string())?;
        Ok(self.views[a][i].to_value())
    }
    fn store(&mut self, a: usize, index: &[usize], v: Value) -> Result<(), String> {
        let i: [usize; N] = index.try_into().map_err(|_| "rank".to_string())?;
        self.views[a][i] = T::from_value(v);
        Ok(())
    }
    fn elem(&self, _: usize) -> ScalarTy {
        self.elem
    }
    fn point(&mut self) {
        self.dev.point();
    }
    fn statement(&mut self) {
        self.dev.statement();
    }
    fn counts(&mut self) -> bool {
        self.dev.counts()
    }
}
