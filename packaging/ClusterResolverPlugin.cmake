# cr_add_plugin(NAME KIND resolver|accelerator SOURCES src... [LIBRARIES lib...]
#               [INSTALL_DIR dir] [MANIFEST file])
#
# The installed SDK's plugin helper (see cluster-resolver-plugin(7)). Builds
# NAME.so as a MODULE with hidden visibility that exports only
# cr_plugin_entry and links nothing from the host, and installs it under
# INSTALL_DIR, by default the directory the installed host searches
# (ClusterResolver_RESOLVER_DIR or ClusterResolver_ACCELERATOR_DIR, whatever
# the project's own CMAKE_INSTALL_PREFIX), so `cmake --install` makes the
# plugin visible to `cluster-resolver` at once. A relative INSTALL_DIR is
# under the project's prefix; the host then finds it only through the
# config's plugin_path or CLUSTER_RESOLVER_PLUGIN_PATH.
# MANIFEST names the plugin's manifest, installed beside it as NAME.applies
# (cluster-resolver-plugin(7), MANIFESTS). The target is called NAME.
include(GNUInstallDirs)

function(cr_add_plugin name)
  cmake_parse_arguments(P "" "KIND;INSTALL_DIR;MANIFEST" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT P_KIND MATCHES "^(resolver|accelerator)$")
    message(FATAL_ERROR "cr_add_plugin(${name}): KIND must be resolver or accelerator")
  endif()
  if(NOT name MATCHES "^[a-z0-9_-]+$")
    message(FATAL_ERROR "cr_add_plugin(${name}): a plugin name is [a-z0-9_-]+")
  endif()
  if(NOT P_SOURCES)
    message(FATAL_ERROR "cr_add_plugin(${name}): no SOURCES")
  endif()
  if(NOT P_INSTALL_DIR)
    if(P_KIND STREQUAL "resolver")
      set(P_INSTALL_DIR "${ClusterResolver_RESOLVER_DIR}")
    else()
      set(P_INSTALL_DIR "${ClusterResolver_ACCELERATOR_DIR}")
    endif()
  endif()
  add_library(${name} MODULE ${P_SOURCES})
  set_target_properties(${name} PROPERTIES
    PREFIX "" OUTPUT_NAME "${name}" SUFFIX ".so"
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${name} PRIVATE ClusterResolver::SDK ${P_LIBRARIES})
  target_link_options(${name} PRIVATE
    "-Wl,--version-script=${ClusterResolver_EXPORTS_MAP}" "-Wl,--no-undefined")
  set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${ClusterResolver_EXPORTS_MAP}")
  install(TARGETS ${name} LIBRARY DESTINATION "${P_INSTALL_DIR}")
  if(P_MANIFEST)
    install(FILES "${P_MANIFEST}" DESTINATION "${P_INSTALL_DIR}" RENAME "${name}.applies")
  endif()
endfunction()
