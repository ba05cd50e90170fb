#!/usr/bin/env python3
"""Data parallel with opkit's ops (issue 15, item 3): a small language model built from
opkit.torch functions (embedding, rms_norm, swiglu, cross_entropy) is trained a few SGD
steps under DistributedDataParallel in two processes, one GPU each (NCCL;
torch.distributed is the engine, opkit only runs the ops), and again in one process on
the doubled batch. The losses of every step must agree: DDP averages the two halves'
gradients, which is the doubled batch's mean-loss gradient, so the runs differ only by
the order of floating-point sums (f32 here: agreement to 1e-4 relative is asked).

    python3 bench/ddp_check.py                  # two GPUs, NCCL (exit 77 with fewer)
    python3 bench/ddp_check.py --cpu            # two CPU processes, gloo: a smoke test
                                                # of the same code (ctest runs this one)

NVLink multicast stays off (NCCL_NVLS_ENABLE=0), as the device tool's notes require."""
import argparse
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import opkit.torch as okt  # noqa: E402

VOCAB, DIM, HIDDEN, SEQ, BATCH, STEPS, LR = 512, 64, 128, 32, 8, 5, 0.5


class TinyLM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1234)
        self.emb = torch.nn.Parameter(torch.randn(VOCAB, DIM, generator=g) * 0.5)
        self.norm = torch.nn.Parameter(torch.ones(DIM))
        self.up = torch.nn.Parameter(torch.randn(DIM, 2 * HIDDEN, generator=g) / DIM ** 0.5)
        self.down = torch.nn.Parameter(torch.randn(HIDDEN, DIM, generator=g) / HIDDEN ** 0.5)
        self.head = torch.nn.Parameter(torch.randn(DIM, VOCAB, generator=g) / DIM ** 0.5)

    def forward(self, ids, target):
        h = okt.embedding(ids.reshape(-1), self.emb)
        u = okt.rms_norm(h, self.norm) @ self.up
        h = h + okt.swiglu(u[:, :HIDDEN].contiguous(), u[:, HIDDEN:].contiguous()) @ self.down
        return okt.cross_entropy(h @ self.head, target.reshape(-1))


def batches(total):
    g = torch.Generator().manual_seed(99)
    return [torch.randint(0, VOCAB, (total, SEQ + 1), generator=g) for _ in range(STEPS)]


def train(model, data, device, ddp):
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    losses = []
    for batch in data:
        batch = batch.to(device)
        loss = (ddp or model)(batch[:, :-1], batch[:, 1:])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if dist.is_initialized():  # the global batch's loss: the mean of the two halves
            dist.all_reduce(loss.detach(), op=dist.ReduceOp.SUM)
            loss = loss.detach() / dist.get_world_size()
        losses.append(float(loss))
    return losses


def worker(rank, world, cpu, init_file, out_file):
    backend = "gloo" if cpu else "nccl"
    dist.init_process_group(backend, init_method=f"file://{init_file}", rank=rank, world_size=world)
    device = torch.device("cpu") if cpu else torch.device("cuda", rank)
    if not cpu:
        torch.cuda.set_device(device)
    model = TinyLM().to(device)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=None if cpu else [rank])
    data = [b[rank * BATCH:(rank + 1) * BATCH] for b in batches(2 * BATCH)]
    losses = train(model, data, device, ddp)
    if rank == 0:
        torch.save(losses, out_file)
    dist.barrier()
    # Leave without running destructors: with Debian's torch 1.13 and gloo, ~Reducer joins
    # the process group's worker thread while holding the GIL, and that thread can still be
    # freeing a finished collective's tensor, which needs the GIL: a deadlock (seen in CI;
    # one rank hung in ProcessGroupGloo::~ProcessGroupGloo). Everything this worker had to
    # do is done and written by now.
    sys.stdout.flush()
    os._exit(0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cpu", action="store_true", help="two CPU processes with gloo (smoke test)")
    a = p.parse_args()
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    if not a.cpu and (not torch.cuda.is_available() or torch.cuda.device_count() < 2):
        print(f"SKIPPED: needs two GPUs; PyTorch sees {torch.cuda.device_count() if torch.cuda.is_available() else 0}")
        return 77
    device = torch.device("cpu") if a.cpu else torch.device("cuda", 0)
    single = train(TinyLM().to(device), batches(2 * BATCH), device, None)
    with tempfile.TemporaryDirectory() as tmp:
        init_file, out_file = os.path.join(tmp, "init"), os.path.join(tmp, "losses.pt")
        mp.spawn(worker, args=(2, a.cpu, init_file, out_file), nprocs=2, join=True)
        parallel = torch.load(out_file)
    print("step  one process (batch %d)  DDP 2 x %d" % (2 * BATCH, BATCH))
    worst = 0.0
    for i, (s, d) in enumerate(zip(single, parallel)):
        print(f"{i:4d}  {s:.6f}  {d:.6f}")
        worst = max(worst, abs(s - d) / abs(s))
    falls = single[-1] < single[0]
    print(f"largest relative difference {worst:.2e} (asked: <= 1e-4); loss falls: {falls}")
    return 0 if worst <= 1e-4 and falls and len(parallel) == STEPS else 1


if __name__ == "__main__":
    sys.exit(main())
