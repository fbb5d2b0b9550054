"""Build script: compiles every .pyx of the three packages and their subfolders (metadata lives
in pyproject.toml), on every CPU this process may use: Cython translates the .pyx files in
parallel, and the C++ compiler builds one extension per CPU at a time (`pip install -e .`
included, which runs build_ext without a -j option)."""
import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class ParallelBuildExt(build_ext):
    """build_ext that compiles usable_cpus() extensions at once unless -j/--parallel says
    otherwise."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = usable_cpus()


def extensions() -> list[Extension]:
    modules = []
    for package in ("features", "classifiers", "parser"):
        for pyx in sorted((ROOT / package).rglob("*.pyx")):
            name = ".".join(pyx.relative_to(ROOT).with_suffix("").parts)
            modules.append(
                Extension(
                    name,
                    [str(pyx.relative_to(ROOT))],
                    include_dirs=[numpy.get_include()],
                    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                    # -g0: no debug sections, which would make up most of the installed size.
                    extra_compile_args=["-O3", "-g0"],
                    language="c++",
                )
            )
    return cythonize(
        modules,
        nthreads=usable_cpus(),
        include_path=[str(ROOT)],
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )


setup(ext_modules=extensions(), cmdclass={"build_ext": ParallelBuildExt})
