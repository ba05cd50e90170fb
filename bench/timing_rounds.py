"""Times the implementations of one case in alternating rounds (bench/gpu_compare.py
--rounds N).

One timing of each implementation after the other (the way gpu_compare.py always timed a
case) leaves a few-percent gap between two implementations at the mercy of whatever moved
between their turns: clocks, the allocator's placement of a peer's output, the host. The
thirty-second session found ties and leads among the standing table's 1-2 % misses that
way (docs/PERFORMANCE.md). With rounds, each implementation is timed once a round, the
order rotated by one each round (no implementation always follows the same other one),
and a case reports each implementation's median over the rounds and every round's time, so
that a ratio's spread across rounds can be printed next to it.

Kept free of torch so that scripts/tests can run it with stand-in timers.
"""
import statistics


def time_in_rounds(fns, rounds, time_one):
    """fns: {impl: callable}, in their reporting order; time_one(fn) -> milliseconds.

    Returns {impl: {"ms": median over the rounds or None, "rounds": [ms of each round],
    "error": text or None}}. An implementation whose timing raises is reported with the
    error's text and no time, and is not timed again in later rounds (a baseline that
    cannot run is reported, not fatal). rounds < 1 is refused.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {rounds}")
    order = list(fns)
    result = {impl: {"ms": None, "rounds": [], "error": None} for impl in order}
    for k in range(rounds):
        shift = k % len(order) if order else 0
        for impl in order[shift:] + order[:shift]:
            entry = result[impl]
            if entry["error"] is not None:
                continue
            try:
                entry["rounds"].append(time_one(fns[impl]))
            except Exception as e:  # noqa: BLE001 - reported with the case, as gpu_compare always did
                entry["error"] = str(e)[:200]
    for entry in result.values():
        if entry["error"] is None and entry["rounds"]:
            entry["ms"] = statistics.median(entry["rounds"])
        elif entry["error"] is not None:
            entry["rounds"] = []  # an implementation that failed in any round has no time
    return result


def ratio_range(peer_rounds, opkit_rounds):
    """(lowest, highest) of peer / opkit over rounds timed together, or None where either
    list is missing, empty or of another length (a run without rounds)."""
    if not peer_rounds or not opkit_rounds or len(peer_rounds) != len(opkit_rounds):
        return None
    ratios = [p / o for p, o in zip(peer_rounds, opkit_rounds) if o]
    if len(ratios) != len(opkit_rounds):
        return None
    return min(ratios), max(ratios)
