"""Builds the Python package iklab with the project's own CMake.

setuptools is the build backend (pyproject.toml): Debian packages it
(python3-setuptools), and it lets this file hand the compiled part to the
project's CMake, so the extension is built with the same flags, options and
dependencies as `make build`. See docs/python.md ("pip install").

    python3 -m venv --system-site-packages v
    v/bin/pip install --no-build-isolation .

Environment:
  IKLAB_BUILD_DIR             CMake build folder (default: build-python)
  CMAKE_BUILD_PARALLEL_LEVEL  parallel compile jobs (default: 2)
  CMAKE_CXX_COMPILER_LAUNCHER compiler launcher (default: ccache when found)
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    """The version of project(iklab VERSION x.y.z) in CMakeLists.txt."""
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(iklab\s+VERSION\s+([0-9][0-9.]*)", text)
    if not match:
        raise RuntimeError("CMakeLists.txt: no 'project(iklab VERSION x.y.z)' line")
    return match.group(1)


class CMakeExtension(Extension):
    """The compiled module iklab._iklab, built by CMake (no sources here)."""

    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures the project with CMake, builds the target iklab_python, and
    puts the module, the generated stubs and the shipped data into the
    package."""

    def build_extension(self, ext):
        build_dir = Path(os.environ.get("IKLAB_BUILD_DIR", ROOT / "build-python"))
        env = os.environ.copy()
        # Paths below the clone are hashed relative to it, so that ccache
        # reuses compilations of other clones and of `make build`.
        env.setdefault("CCACHE_BASEDIR", str(ROOT))
        args = [
            "-DCMAKE_BUILD_TYPE=Release",
            "-DIKLAB_BUILD_TESTS=OFF",
            "-DIKLAB_BUILD_PYTHON=ON",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        launcher = env.get("CMAKE_CXX_COMPILER_LAUNCHER") or shutil.which("ccache")
        if launcher:
            args.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}")
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), *args],
                       check=True, env=env)
        jobs = env.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run(["cmake", "--build", str(build_dir), "--target",
                        "iklab_python", "-j", jobs], check=True, env=env)

        built = build_dir / "python" / "iklab"
        modules = sorted(built.glob("_iklab*.so"))
        if not modules:
            raise RuntimeError(f"CMake built no module _iklab*.so in {built}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(modules[0], target)
        for name in ("_header_docs.py", "_iklab.pyi", "py.typed"):
            if (built / name).exists():
                shutil.copyfile(built / name, target.parent / name)
        if not self.inplace:
            data = target.parent / "data"
            shutil.rmtree(data, ignore_errors=True)
            shutil.copytree(ROOT / "data", data)


setup(
    version=project_version(),
    ext_modules=[CMakeExtension("iklab._iklab")],
    cmdclass={"build_ext": CMakeBuild},
)
