import ctypes, sys
lib = ctypes.CDLL("/tmp/nvrtc/nvidia/cu13/lib/libnvrtc.so.13")
def ptx(src, arch="compute_90"):
    prog = ctypes.c_void_p()
    r = lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None)
    assert r == 0, r
    opts = [f"--gpu-architecture={arch}".encode(), b"--std=c++17", b"--fmad=true"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    r = lib.nvrtcCompileProgram(prog, len(opts), arr)
    if r != 0:
        n = ctypes.c_size_t(); lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
        b = ctypes.create_string_buffer(n.value); lib.nvrtcGetProgramLog(prog, b); print(b.value.decode()); sys.exit(1)
    n = ctypes.c_size_t(); lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
    b = ctypes.create_string_buffer(n.value); lib.nvrtcGetPTX(prog, b)
    return b.value.decode()
for f in sys.argv[1:]:
    p = ptx(open(f).read())
    open(f + ".ptx", "w").write(p)
    import collections
    c = collections.Counter(l.split()[0] for l in p.splitlines() if l.strip() and l.split()[0].startswith(("fma", "mul.", "add.", "sub.", "neg.")))
    print(f, dict(c))
