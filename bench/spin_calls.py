"""The calls of a profile queued behind a spin kernel, as gpu_compare.timed queues them:
for each call, how long after the spin's end its first kernel started (the lead), the span
from that start to its last kernel's end, and the time its kernels were busy. Kept apart
from bench/kernel_breakdown.py (which profiles) so that it can be tested without torch or a
GPU (scripts/tests/test_spin_calls.py).
"""


def is_spin(name):
    """torch.cuda._sleep's kernel (ATen's spin_kernel)."""
    return "spin" in name or "sleep" in name


def busy_ns(intervals):
    """Length of the union of (start, end) intervals sorted by start: kernels that overlap
    (a dependent launch starts, and waits, while the kernel before it still runs) count once."""
    total, cur_start, cur_end = 0, None, None
    for s, e in intervals:
        if cur_end is None or s > cur_end:
            if cur_end is not None:
                total += cur_end - cur_start
            cur_start, cur_end = s, e
        else:
            cur_end = max(cur_end, e)
    return total + (cur_end - cur_start if cur_end is not None else 0)


def calls_behind_spin(kernels):
    """kernels: (name, start ns, end ns) of a profile's device activities in any order.
    Returns a (lead, span, busy) tuple in microseconds for each spin followed by at least
    one other kernel (busy: the time at least one of them ran); activities before the first
    spin belong to no call."""
    out, call, spin_end = [], None, None

    def close():
        if call:
            out.append(((call[0][0] - spin_end) / 1e3, (max(e for _, e in call) - call[0][0]) / 1e3,
                        busy_ns(call) / 1e3))

    for name, start, end in sorted(kernels, key=lambda k: k[1]):
        if is_spin(name):
            close()
            spin_end, call = end, []
        elif call is not None:
            call.append((start, end))
    close()
    return out
