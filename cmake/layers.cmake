# The layers of scalecheck, each a static library that sees only its own modules and those of
# the layers below it: every layer compiles against a folder of links to exactly those module
# folders (build/layers/<layer>/), so an upward #include ("engine/..." from comm) is a
# "No such file" error at build time, not a review comment. docs/ARCHITECTURE.md explains the
# layers; tests/layers/check_layers.py proves the refusal and that no headers form a cycle.
#
# sc_layer(NAME MODULES m... USES lower-layer... SOURCES file...)
set(SC_LAYER_ROOT ${CMAKE_BINARY_DIR}/layers)
set(SC_LAYER_MAP "")

function(sc_layer name)
  cmake_parse_arguments(L "" "" "MODULES;USES;SOURCES" ${ARGN})
  set(modules ${L_MODULES})
  foreach(lower ${L_USES})
    list(APPEND modules ${SC_LAYER_${lower}_MODULES})
  endforeach()
  list(REMOVE_DUPLICATES modules)
  set(SC_LAYER_${name}_MODULES ${modules} PARENT_SCOPE)
  set(dir ${SC_LAYER_ROOT}/${name})
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  foreach(m ${modules})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/harness/${m} ${dir}/${m} SYMBOLIC)
  endforeach()
  add_library(sc_${name} STATIC ${L_SOURCES})
  target_include_directories(sc_${name} PRIVATE ${dir} ${CMAKE_BINARY_DIR}/generated)
  foreach(lower ${L_USES})
    target_link_libraries(sc_${name} PUBLIC sc_${lower})
  endforeach()
  string(REPLACE ";" " " own "${L_MODULES}")
  string(REPLACE ";" " " all "${modules}")
  set(SC_LAYER_MAP "${SC_LAYER_MAP}${name}: ${own} | ${all}\n" PARENT_SCOPE)
endfunction()
