"""Build script: compiles every .pyx of the three packages and their subfolders (metadata lives
in pyproject.toml)."""
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

ROOT = Path(__file__).parent


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
        include_path=[str(ROOT)],
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )


setup(ext_modules=extensions())
