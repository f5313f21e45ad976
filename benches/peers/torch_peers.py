"""PyTorch peer: array slicing on CUDA tensors. Usage: python3 torch_peers.py --out torch.json"""

import torch

import common


class Slicing:
    name = "torch-slicing"

    def setup(self, u, v, b):
        bufs = [torch.from_numpy(u).cuda(), torch.from_numpy(v).cuda()]
        return dict(bufs=bufs, b=torch.from_numpy(b).cuda() if b is not None else bufs[0])

    def step(self, st, kernel, precision, src, dst):
        with torch.no_grad():
            common.slicing_step(kernel, st["bufs"][src], st["bufs"][dst], st["b"])

    def result(self, st, i):
        return st["bufs"][i].cpu().numpy()

    def sync(self):
        torch.cuda.synchronize()

    def events(self):
        a = torch.cuda.Event(enable_timing=True)
        z = torch.cuda.Event(enable_timing=True)
        return (a.record, z.record, lambda: a.elapsed_time(z) * 1e-3)


if __name__ == "__main__":
    common.main(lambda: [Slicing()], __doc__)
