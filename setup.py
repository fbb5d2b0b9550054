"""Build script: compiles every .pyx of the three folders (metadata lives in pyproject.toml).

The repository keeps its folders at the top (features/, classifiers/, parser/) and the build maps
them into one package: installed, they are polyparse.features, polyparse.classifiers and
polyparse.parser, so that polyparse adds one import name, `polyparse`, to an installation.
Cython finds a `cimport polyparse.parser...` by its directories, so the build lays the folders out
under polyparse/ in build/cython_include/ (links, nothing copied). Cython's own utility code
(typed memoryviews) is compiled once, into polyparse._cython_utility, and shared by every
module: most of the compile time was that code, repeated in each module. Cython translates the
.pyx files in parallel and the C++ compiler builds one extension per usable CPU at a time."""
import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent
PACKAGE = "polyparse"
FOLDERS = ("features", "classifiers", "parser")
SHARED_UTILITY = f"{PACKAGE}._cython_utility"
CYTHON_INCLUDE = ROOT / "build" / "cython_include"


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


def packages() -> list[str]:
    """polyparse and every package of the folders, under polyparse."""
    found = [PACKAGE]
    for folder in FOLDERS:
        found.append(f"{PACKAGE}.{folder}")
        found += [f"{PACKAGE}.{folder}.{sub}" for sub in find_packages(str(ROOT / folder))]
    return found


def cython_include() -> Path:
    """build/cython_include/polyparse/{features,classifiers,parser}: links to the folders, so
    that Cython resolves `cimport polyparse.<folder>...` (and each module's own .pxd)."""
    package = CYTHON_INCLUDE / PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").touch()
    for folder in FOLDERS:
        link = package / folder
        if not link.is_symlink():
            link.symlink_to((ROOT / folder).resolve(), target_is_directory=True)
    return CYTHON_INCLUDE


def extensions() -> list[Extension]:
    modules = [Extension(SHARED_UTILITY, [])]
    for folder in FOLDERS:
        for pyx in sorted((ROOT / folder).rglob("*.pyx")):
            relative = pyx.relative_to(ROOT)
            modules.append(
                Extension(
                    ".".join((PACKAGE, *relative.with_suffix("").parts)),
                    [str(relative)],
                    include_dirs=[numpy.get_include()],
                    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                    # -O3: the beam search's inner loops run 30 % slower at -O2 (measured:
                    # EWT test, 0.63 s against 0.43 s); -g0: no debug sections, which would
                    # make up most of the installed size.
                    extra_compile_args=["-O3", "-g0"],
                    language="c++",
                )
            )
    return cythonize(
        modules,
        nthreads=usable_cpus(),
        include_path=[str(cython_include())],
        shared_utility_qualified_name=SHARED_UTILITY,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "binding": False,
        },
    )


setup(
    packages=packages(),
    package_dir={PACKAGE: PACKAGE, **{f"{PACKAGE}.{folder}": folder for folder in FOLDERS}},
    ext_modules=extensions(),
    cmdclass={"build_ext": ParallelBuildExt},
)
