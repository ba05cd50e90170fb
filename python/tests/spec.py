"""The op spec (spec/ops.h) read as text, the way tests/spec/check_spec.py reads it: the
ground truth the binding is checked against, independent of the library it loads."""
import os
import re

SPEC_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "spec", "ops.h")


def spec_ops():
    """[(op name, [(kind, parameter name), ...]), ...] in spec order."""
    text = open(SPEC_PATH).read()
    order = re.findall(r"^\s+X\((\w+)\)", text, re.M)
    params = {}
    for m in re.finditer(r"#define OPKIT_PARAMS_(\w+)\(P\)((?:.|\\\n)*?)(?=\n#|\n\n)", text):
        params[m.group(1)] = re.findall(r"P\((\w+), (\w+)\)", m.group(2))
    return [(name, params[name]) for name in order]
