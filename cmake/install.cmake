# What `cmake --install` puts where, and the Debian package CPack makes of it (`cpack -G DEB`):
#   bin/scalecheck                          the program
#   lib/scalecheck/libscalecheck-gpu.so     the NVIDIA GPU path (where it was built), found beside bin/
#   lib/scalecheck/libscalecheck-rocm.so    the AMD GPU path (always: it loads ROCm at run time)
#   share/scalecheck/{topologies,workloads} the shipped files: -Y dgx-a100, -W resnet50-dp
#   share/scalecheck/launch                 the launchers (mpirun wrapper, Slurm, Kubernetes)
#   share/man/man1/scalecheck*.1.gz         scalecheck(1) and a page a command, from --help's tables
#   share/bash-completion/completions/scalecheck   from the same tables
#   share/doc/scalecheck/{LICENSE,copyright,changelog.gz,README.md}
#   share/lintian/overrides/scalecheck      why two of lintian's findings are intended
# The program finds the shipped files relative to itself (util/sc_files.c), so the package works
# under any prefix.
include(GNUInstallDirs)

set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                                                GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
install(TARGETS scalecheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS scalecheck_rocm scalecheck_ascend LIBRARY DESTINATION lib/scalecheck)
if(SC_HAVE_NCCL)
  install(TARGETS scalecheck_gpu LIBRARY DESTINATION lib/scalecheck)
endif()
install(DIRECTORY topologies/ DESTINATION ${CMAKE_INSTALL_DATADIR}/scalecheck/topologies
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.md")
install(DIRECTORY workloads/ DESTINATION ${CMAKE_INSTALL_DATADIR}/scalecheck/workloads
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.md")
# Modes set, not copied: a checkout from `git archive` (umask 002) has 0775 folders and 0664
# files, which a package must not carry (lintian: non-standard-dir-perm); scripts 0755.
install(DIRECTORY launch/ DESTINATION ${CMAKE_INSTALL_DATADIR}/scalecheck/launch
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
        PATTERN "*.sh" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                   WORLD_READ WORLD_EXECUTE
        PATTERN "*.sbatch" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                                       GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
install(FILES LICENSE README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Debian's name for the licence: every package has share/doc/<package>/copyright; a native
# package its changelog.gz (gzip -9n: no name, no time, the same bytes every build); and the
# lintian overrides say why two of its findings are intended (cmake/debian/lintian-overrides)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/debian/changelog.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/debian
  COMMAND gzip -9n -c ${CMAKE_SOURCE_DIR}/cmake/debian/changelog > ${CMAKE_BINARY_DIR}/debian/changelog.gz
  DEPENDS ${CMAKE_SOURCE_DIR}/cmake/debian/changelog
  COMMENT "the package's changelog.gz")
add_custom_target(scalecheck_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/debian/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/cmake/debian/lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME scalecheck)

# The man pages and the completion, written by the program itself (SCALECHECK_HELP_FORMAT: the
# option tables --help prints), so they never drift from the options.
set(SC_DOCS_DIR ${CMAKE_BINARY_DIR}/docs-generated)
add_custom_command(
  OUTPUT ${SC_DOCS_DIR}/scalecheck.1 ${SC_DOCS_DIR}/scalecheck.bash
  COMMAND ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
          bash ${CMAKE_SOURCE_DIR}/scripts/gen-docs.sh $<TARGET_FILE:scalecheck> ${SC_DOCS_DIR}
  DEPENDS scalecheck ${CMAKE_SOURCE_DIR}/scripts/gen-docs.sh
  COMMENT "man pages and bash completion from the option tables")
add_custom_target(scalecheck_docs ALL DEPENDS ${SC_DOCS_DIR}/scalecheck.1
                                              ${SC_DOCS_DIR}/scalecheck.bash)
install(DIRECTORY ${SC_DOCS_DIR}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        FILES_MATCHING PATTERN "*.1.gz")
install(FILES ${SC_DOCS_DIR}/scalecheck.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME scalecheck)

set(CPACK_PACKAGE_NAME scalecheck)
set(CPACK_PACKAGE_VENDOR "the scalecheck authors")
# one string each: two would be a CMake list, joined by a stray ';' in the package's Description
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "prove that a GPU cluster scales, and find the link or node that does not")
set(CPACK_PACKAGE_DESCRIPTION
    "scalecheck runs the communication of real training on every rank of a GPU\n\
cluster (NCCL on NVLink and InfiniBand, or MPI and UCX): collectives, data-,\n\
tensor- and pipeline-parallel steps, point-to-point pairs and long soaks. It\n\
measures 1-8 GPU and 1..N node speedup curves, holds them to what a YAML\n\
topology says the hardware should deliver, names the slow link or node, and\n\
writes a verdict for people (HTML) and for CI (JUnit, JSON, Prometheus).")
# who packages it: set SC_DEB_MAINTAINER when building a package to ship
set(SC_DEB_MAINTAINER "scalecheck maintainers <maintainers@scalecheck.example.org>"
    CACHE STRING "the Maintainer of the .deb cpack makes")
set(CPACK_PACKAGE_CONTACT "${SC_DEB_MAINTAINER}")
# binaries stripped (lintian: unstripped-binary-or-object)
set(CPACK_STRIP_FILES ON)
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# the shared libraries it links, as dpkg-shlibdeps finds them (the MPI the build used among them)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# ... and what runs it: the launcher of the MPI it was built with (shlibdeps brings the library,
# not mpirun), and gnuplot for the report's plots (without it the report has tables only)
if(MPI_C_LIBRARIES MATCHES "mpich")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "mpich")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
include(CPack)
