# What `cmake --install` puts where, and the Debian package CPack makes of it (`cpack -G DEB`):
#   bin/scalecheck                          the program
#   lib/scalecheck/libscalecheck-gpu.so     the GPU path (where it was built), found beside bin/
#   share/scalecheck/{topologies,workloads} the shipped files: -Y dgx-a100, -W resnet50-dp
#   share/scalecheck/launch                 the launchers (mpirun wrapper, Slurm, Kubernetes)
#   share/man/man1/scalecheck*.1            scalecheck(1) and a page a command, from --help's tables
#   share/bash-completion/completions/scalecheck   from the same tables
#   share/doc/scalecheck/{LICENSE,README.md}
# The program finds the shipped files relative to itself (util/sc_files.c), so the package works
# under any prefix.
include(GNUInstallDirs)

install(TARGETS scalecheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(SC_HAVE_NCCL)
  install(TARGETS scalecheck_gpu LIBRARY DESTINATION lib/scalecheck)
endif()
install(DIRECTORY topologies/ DESTINATION ${CMAKE_INSTALL_DATADIR}/scalecheck/topologies
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.md")
install(DIRECTORY workloads/ DESTINATION ${CMAKE_INSTALL_DATADIR}/scalecheck/workloads
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.md")
install(DIRECTORY launch/ DESTINATION ${CMAKE_INSTALL_DATADIR}/scalecheck/launch
        USE_SOURCE_PERMISSIONS)
install(FILES LICENSE README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

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
install(DIRECTORY ${SC_DOCS_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        FILES_MATCHING PATTERN "*.1")
install(FILES ${SC_DOCS_DIR}/scalecheck.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME scalecheck)

set(CPACK_PACKAGE_NAME scalecheck)
set(CPACK_PACKAGE_VENDOR "the scalecheck authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "prove that a GPU cluster scales: collectives, training "
                                      "steps, pairs, soak, verdicts")
set(CPACK_PACKAGE_CONTACT "scalecheck maintainers <scalecheck@localhost>")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# the shared libraries it links, as dpkg-shlibdeps finds them (the MPI the build used among them)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gnuplot-nox")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
include(CPack)
