#!/usr/bin/env python3
"""Where one opkit call's device time goes: for each of gpu_compare.py's cases that
--ops / --shapes keep, the call timed as gpu_compare times it (behind a spin kernel,
events), each kernel it launches with its mean device time from the CUDA profiler (CUPTI,
through torch.profiler, at the GPU's own clocks), their sum, and what the call's time has
beyond that sum (the gaps between kernels, each launch's start and drain).

    OPKIT_LIBRARY=<build>/lib/libopkit.so.1 python3 bench/kernel_breakdown.py \\
        --ops rms_norm_backward,layer_norm_backward --dtypes bf16 [--shapes 4096x16384]

The question it answers: is an op short of the copy bandwidth inside its main kernel, or
in the kernels and gaps around it (the norm backwards' column sums, say)? With --impls
opkit,compile,liger (any of gpu_compare.py's implementations) each one's call is broken
down the same way, one after the other: where opkit trails a peer by a microsecond or
two, whether the difference is in the kernels or beyond them. (torch.compile's function
compiles on its first call, which kernel_times makes before it profiles.) --behind-spin
profiles the calls again as gpu_compare times them, each behind the spin kernel between
two events: the events' time beyond the kernels' span in the same calls (the call's part
outside its kernels), and how long after the spin the first kernel starts (the lead).
The implementation "copy" is a device-to-device copy of each case's bytes (gpu_compare.py's
same_size_copy, here for every case with bytes): a lead and a tail from a plain memcpy
beside opkit's and Triton's kernels.
"""
import argparse
import collections
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from gpu_compare import DT, same_size_copy, selected_cases, substring_filter, timed  # noqa: E402
from spin_calls import calls_behind_spin  # noqa: E402


def kernel_times(fn, calls):
    """Mean device microseconds per call of each kernel fn launches (memsets included)."""
    fn()
    torch.cuda.synchronize()
    acts = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    per = collections.defaultdict(float)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            per[e.name] += e.device_time / calls
    return per


def device_kernels(prof):
    """(name, start ns, end ns) of every device activity the profile holds."""
    out = []
    try:  # the raw Kineto events keep nanoseconds
        for e in prof.profiler.kineto_results.events():
            # record_function ranges can come back as device-side annotations: not kernels
            if e.device_type() == torch.autograd.DeviceType.CUDA and not e.is_user_annotation():
                out.append((e.name(), e.start_ns(), e.start_ns() + e.duration_ns()))
    except AttributeError:  # older torch: FunctionEvent's microseconds below
        out = []
    if not out:
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA and not getattr(e, "is_user_annotation", False):
                out.append((e.name, e.time_range.start * 1e3, e.time_range.end * 1e3))
    return out


def behind_spin(fn, calls, cycles=2_000_000):
    """fn's calls profiled the way gpu_compare.timed runs them, each queued behind the spin
    kernel between its two events (the GPU sees timed's order; the host queues all the calls
    without timed's sync after each, and CUPTI traces them): medians over the calls of the
    lead (the spin's end to fn's first kernel's start), the span (that start to fn's last
    kernel's end), the kernels' busy time, the events' time and, call by call, the events'
    time beyond the span (what the timed call has outside its kernels), in us. kernel_times() profiles calls back
    to back, whose caches and clocks differ from the timed calls'; these are the timed calls'
    own, kernels and events alike."""
    fn()
    torch.cuda.synchronize()
    acts = [torch.profiler.ProfilerActivity.CUDA]
    events = []
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(calls):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(cycles)
            a.record()
            fn()
            b.record()
            events.append((a, b))
        torch.cuda.synchronize()
    spans = calls_behind_spin(device_kernels(prof))
    if len(spans) != len(events):
        raise RuntimeError(f"the profile holds {len(spans)} calls behind a spin kernel, not {len(events)}")
    event_us = [a.elapsed_time(b) * 1e3 for a, b in events]
    med = statistics.median
    return (med(c[0] for c in spans), med(c[1] for c in spans), med(c[2] for c in spans), med(event_us),
            med(e - c[1] for e, c in zip(event_us, spans)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtypes", default="bf16")
    p.add_argument("--ops", default=None, help="comma list of substrings of op names to keep")
    p.add_argument("--shapes", default=None, help="comma list of substrings of shape strings to keep")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--calls", type=int, default=20, help="profiled calls per case")
    p.add_argument("--impls", default="opkit", help="comma list of gpu_compare.py implementations")
    p.add_argument("--behind-spin", action="store_true",
                   help="also profile the calls queued behind the spin kernel between their events, as timed: "
                        "the events' time beyond the kernels' span in the same calls, the lead from the spin's end "
                        "to the first kernel (medians)")
    args = p.parse_args()
    ops_f, shapes_f = substring_filter(args.ops), substring_filter(args.shapes)
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for name in args.dtypes.split(","):
        for cases in selected_cases(DT[name], False, ops_f, shapes_f):
            for c in cases:
                for impl in args.impls.split(","):
                    fn = c.fns.get(impl)
                    if impl == "copy" and c.bytes:  # a memcpy of the case's bytes (gpu_compare's same_size_copy)
                        fn = same_size_copy(c.bytes)
                    if fn is None:  # the case has no such implementation (Liger's rope, say)
                        continue
                    per = kernel_times(fn, args.calls)
                    call_us = timed(fn, args.reps) * 1e3
                    total = sum(per.values())
                    print(f"{c.name} {c.shape} {name} {impl}: call {call_us:.2f} us, kernels {total:.2f} us, "
                          f"beyond them {call_us - total:.2f} us")
                    for kname, us in sorted(per.items(), key=lambda kv: -kv[1]):
                        print(f"  {us:9.2f}  {kname}")
                    if args.behind_spin:
                        lead, span, busy, ev, beyond = behind_spin(fn, args.calls)
                        print(f"  behind the spin, the same calls: events {ev:.2f} us, kernels' span {span:.2f} us "
                              f"(busy {busy:.2f}), events beyond the span {beyond:.2f} us; lead {lead:.2f} us")
            del cases


if __name__ == "__main__":
    main()
