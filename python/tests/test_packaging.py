"""The pip-installable package (python/pyproject.toml) and where it finds libopkit.

Each test that installs works in a fresh virtual environment in a temporary directory and
runs the installed package from outside the source tree, so that nothing of the checkout
is imported by accident. pip runs offline (--no-index, --no-build-isolation: setuptools and
wheel come from the system, as on Debian 12), so these tests need no network.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
SOURCE_ROOT = os.path.dirname(PYTHON_DIR)

import opkit  # noqa: E402  (conftest.py put the tree's package first)


def header_version():
    text = open(os.path.join(SOURCE_ROOT, "include", "opkit.h")).read()
    parts = [re.search(rf"#define OPKIT_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def test_package_version_is_the_headers():
    assert opkit.__version__ == header_version(), \
        "python/opkit/_version.py drifted from include/opkit.h: update _version.py"


def test_loaded_library_matches_the_binding():
    assert opkit.version().split(".")[0] == opkit.__version__.split(".")[0]
    assert opkit.library_path and os.path.exists(opkit.library_path)
    assert opkit.library_found_by in ("$OPKIT_LIBRARY", "the system loader",
                                      "the build tree next to the source")


def library_file():
    """The libopkit.so.1 these tests install against: the one the suite loaded."""
    return opkit.library_path


def system_has_libopkit():
    """True when the system loader alone resolves libopkit.so.1 (an installed libopkit1)."""
    probe = "import ctypes\ntry:\n ctypes.CDLL('libopkit.so.1')\nexcept OSError:\n raise SystemExit(1)"
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    return subprocess.run([sys.executable, "-c", probe], env=env).returncode == 0


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A virtual environment with `pip install ./python` done in it; its python."""
    root = tmp_path_factory.mktemp("venv")
    env_dir = root / "env"
    try:
        # --without-pip: pip, setuptools and wheel come from the system's site-packages.
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                        str(env_dir)], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        pytest.skip(f"python3 -m venv does not work here ({e.stderr.strip()[:200]}); "
                    "install python3-venv")
    py = str(env_dir / "bin" / "python")
    if sys.prefix != sys.base_prefix:
        # The tests run from a virtual environment themselves (the GPU machines' python3 is
        # one): --system-site-packages shows the base interpreter's packages, not this
        # environment's (numpy), so the new environment is pointed at them too.
        paths = sysconfig.get_paths()
        inner = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip()
        (pathlib.Path(inner) / "_outer_site_packages.pth").write_text(
            "\n".join(sorted({paths["purelib"], paths["platlib"]})) + "\n")
    # Copy the package's source so that the build's egg-info/ and build/ stay out of the tree.
    src = root / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns("tests", "__pycache__", "*.egg-info",
                                                                    "build", "CMakeLists.txt"))
    r = subprocess.run([py, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                        "--no-deps", "-q", str(src)], capture_output=True, text=True)
    assert r.returncode == 0, f"pip install ./python failed:\n{r.stdout}\n{r.stderr}"
    return py, root


def run_installed(venv, code, **env_changes):
    """Runs code with the venv's python from its own directory; returns stdout."""
    py, root = venv
    env = dict(os.environ)
    for k in ("OPKIT_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH"):
        env.pop(k, None)
    env.update({k: v for k, v in env_changes.items() if v is not None})
    r = subprocess.run([py, "-c", textwrap.dedent(code)], cwd=str(root), env=env,
                       capture_output=True, text=True)
    return r


def test_pip_install_gives_the_package_with_the_library_version(venv):
    py, root = venv
    r = subprocess.run([py, "-m", "pip", "show", "opkit"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"Version: {header_version()}" in r.stdout
    assert "License: Apache-2.0" in r.stdout


def test_installed_package_runs_an_op_through_OPKIT_LIBRARY(venv):
    r = run_installed(venv, """
        import numpy as np, opkit, os
        assert 'site-packages' in opkit.__file__, opkit.__file__
        x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]], dtype=np.float32)
        y = np.empty_like(x)
        opkit.softmax_forward(x, y)
        e = np.exp(x - x.max(1, keepdims=True)); want = e / e.sum(1, keepdims=True)
        assert np.allclose(y, want, rtol=1e-6, atol=1e-7), (y, want)
        print(opkit.__version__, opkit.library_found_by, opkit.library_path)
    """, OPKIT_LIBRARY=library_file())
    assert r.returncode == 0, r.stderr
    version, rest = r.stdout.split(" ", 1)
    assert version == header_version()
    assert rest.startswith("$OPKIT_LIBRARY ")
    assert os.path.realpath(rest.split(" ", 1)[1].strip()) == os.path.realpath(library_file())


def test_installed_package_finds_libopkit_through_the_system_loader(venv, tmp_path):
    """No $OPKIT_LIBRARY: the loader's own search (here LD_LIBRARY_PATH, as ld.so.conf
    would be for an installed libopkit1) comes before anything else."""
    lib_dir = tmp_path / "lib"
    lib_dir.mkdir()
    shutil.copy(library_file(), lib_dir / "libopkit.so.1")
    r = run_installed(venv, """
        import opkit
        print(opkit.library_found_by + "|" + opkit.library_path)
    """, LD_LIBRARY_PATH=str(lib_dir))
    assert r.returncode == 0, r.stderr
    how, path = r.stdout.strip().split("|")
    assert how == "the system loader"
    assert os.path.dirname(path) == str(lib_dir), "LD_LIBRARY_PATH comes before the loader cache"


def test_installed_package_without_any_library_says_where_it_looked(venv):
    if system_has_libopkit():
        pytest.skip("an installed libopkit.so.1 is on this machine's loader path")
    r = run_installed(venv, "import opkit")
    assert r.returncode != 0
    assert "cannot load libopkit.so.1" in r.stderr
    assert "the system loader" in r.stderr and "the build tree next to the source" in r.stderr
    assert "OPKIT_LIBRARY" in r.stderr


def test_checkout_falls_back_to_its_build_tree():
    """From a checkout with nothing installed, ../../build/lib is found last."""
    in_tree = os.path.join(SOURCE_ROOT, "build", "lib", "libopkit.so.1")
    if not os.path.exists(in_tree):
        pytest.skip("no ./build/lib/libopkit.so.1 in this checkout")
    if system_has_libopkit():
        pytest.skip("an installed libopkit.so.1 comes first on this machine")
    env = {k: v for k, v in os.environ.items() if k not in ("OPKIT_LIBRARY", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = PYTHON_DIR
    r = subprocess.run([sys.executable, "-c", "import opkit; print(opkit.library_found_by)"],
                       env=env, capture_output=True, text=True, cwd="/")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "the build tree next to the source"


def test_a_library_of_another_major_version_is_refused(tmp_path):
    """A libopkit whose major differs from the binding's is an ImportError naming both."""
    fake = tmp_path / "libfake.c"
    fake.write_text("unsigned opkit_version(void) { return 2u << 16; }\n")
    so = tmp_path / "libopkit.so.1"
    r = subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(fake)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"no C compiler: {r.stderr[:200]}")
    env = dict(os.environ, OPKIT_LIBRARY=str(so), PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, "-c", "import opkit"], env=env, capture_output=True, text=True, cwd="/")
    assert r.returncode != 0
    assert "is libopkit 2.0.0; this binding needs 1.x" in r.stderr


def test_numpy_example_runs():
    """examples/python/numpy_cpu.py: its own assertions against NumPy math."""
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, os.path.join(SOURCE_ROOT, "examples", "python", "numpy_cpu.py")],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "numpy_cpu: ok" in r.stdout
