# topoplace_layer_check(<library>...): for each library, a program that links it whole
# with only the libraries it declares, so code that calls into a layer it does not list
# (an upper one) is an undefined reference at build time. cmake/check_layers.py checks
# the includes; this checks the calls.
function(topoplace_layer_check)
  foreach(library ${ARGN})
    add_executable(layer_check_${library} ${CMAKE_SOURCE_DIR}/cmake/layer_check_main.cc)
    target_link_libraries(layer_check_${library}
      PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${library}>")
  endforeach()
endfunction()
