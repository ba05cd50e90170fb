"""Runs a test module's test_* functions without pytest (CI images may lack it): each
prints PASS, SKIP (a Skipped exception, or pytest's skip where pytest is installed) or
FAIL with the reason; the exit status is 1 if any failed."""
import sys


class Skipped(Exception):
    pass


def skip(why):
    try:
        import pytest
    except ImportError:
        raise Skipped(why) from None
    pytest.skip(why)


def run(namespace):
    failed = 0
    for name, fn in sorted(namespace.items()):
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                print(f"PASS {name}")
            except Skipped as e:
                print(f"SKIP {name}: {e}")
            except Exception as e:  # noqa: BLE001 - report every failure
                if type(e).__name__ == "Skipped":  # pytest's skip outcome
                    print(f"SKIP {name}: {e}")
                    continue
                failed += 1
                print(f"FAIL {name}: {e}")
    sys.exit(1 if failed else 0)
