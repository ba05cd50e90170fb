"""The version of libopkit this binding was written for: OPKIT_VERSION_MAJOR/MINOR/PATCH of
include/opkit.h. pyproject.toml reads it for the package's version;
python/tests/test_packaging.py fails when the two drift apart."""
__version__ = "1.2.0"
