# Spack recipe for scalecheck (a package of this repository's own Spack repo):
#   spack repo add launch/spack && spack install scalecheck +cuda ^openmpi
# The MPI is Spack's virtual `mpi`: Open MPI, MPICH, or the site's own (an external).
from spack.package import *


class Scalecheck(CMakePackage):
    """Proves that a GPU cluster scales: the communication of real training (data-, tensor- and
    pipeline-parallel) over NCCL or MPI/UCX, measured from 1 GPU to N nodes and held to what
    the topology should deliver, with a verdict a person and a CI job can both read."""

    # Where this repository lives at your site (a mirror of the project's): Spack clones it.
    homepage = "https://example.org/scalecheck"
    git = "https://example.org/scalecheck.git"
    maintainers("scalecheck")
    license("BSD-3-Clause")

    version("main", branch="main")

    variant("cuda", default=True, description="The GPU path: NCCL, CUDA events, cuBLAS")
    variant("ucx", default=True, description="The UCX backend (one-sided puts, pairs --method put)")

    depends_on("c", type="build")
    depends_on("cmake@3.22:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    depends_on("libyaml")
    depends_on("jansson")
    depends_on("hwloc")
    depends_on("gnuplot", type="run")
    depends_on("ucx", when="+ucx")
    depends_on("cuda", when="+cuda")
    depends_on("nccl", when="+cuda")

    def cmake_args(self):
        args = [
            self.define_from_variant("SC_ENABLE_GPU", "cuda"),
            self.define_from_variant("SC_ENABLE_UCX", "ucx"),
        ]
        if self.spec.satisfies("+cuda"):  # Spack's NCCL is not under the CUDA toolkit
            nccl = self.spec["nccl"].prefix
            args += [
                self.define("CMAKE_CUDA_COMPILER", self.spec["cuda"].prefix.bin.nvcc),
                self.define("NCCL_INCLUDE_DIR", nccl.include),
                self.define("NCCL_LIBRARY", join_path(nccl.lib, "libnccl.so")),
            ]
        return args
