# cr_add_plugin(NAME KIND resolver|accelerator SOURCES src... [LIBRARIES lib...]
#               [MANIFEST NAME.applies])
#
# Builds NAME.so as a MODULE that exports only cr_plugin_entry, links nothing
# from the core, and installs it under ${libdir}/cluster-resolver/<kind>s.
set(CR_PLUGIN_EXPORTS "${CMAKE_CURRENT_LIST_DIR}/plugin-exports.map")

function(cr_add_plugin name)
  cmake_parse_arguments(P "" "KIND;MANIFEST" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT P_KIND MATCHES "^(resolver|accelerator)$")
    message(FATAL_ERROR "cr_add_plugin(${name}): KIND must be resolver or accelerator")
  endif()
  set(target "plugin-${P_KIND}-${name}")
  add_library(${target} MODULE ${P_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME "${name}"
    C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY "${CR_BUILD_PLUGINDIR}/${P_KIND}s")
  target_link_libraries(${target} PRIVATE cr_sdk ${P_LIBRARIES})
  target_link_options(${target} PRIVATE "-Wl,--version-script=${CR_PLUGIN_EXPORTS}")
  if(NOT CR_SANITIZE)
    # A plugin must not reach into the core: every symbol resolves at link time.
    target_link_options(${target} PRIVATE "-Wl,--no-undefined")
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION "${CR_PLUGINDIR}/${P_KIND}s")
  # MANIFEST NAME.applies: when the plugin can apply (loader-manifest.c);
  # it lies beside the .so in the build tree and where it is installed.
  if(P_MANIFEST)
    configure_file("${CMAKE_CURRENT_SOURCE_DIR}/${P_MANIFEST}"
      "${CR_BUILD_PLUGINDIR}/${P_KIND}s/${name}.applies" COPYONLY)
    install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/${P_MANIFEST}"
      DESTINATION "${CR_PLUGINDIR}/${P_KIND}s" RENAME "${name}.applies")
  endif()
endfunction()
