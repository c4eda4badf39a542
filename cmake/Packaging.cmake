# Debian packages, one per role (`make package`, or `cpack -G DEB` in a build configured
# with -DCMAKE_INSTALL_PREFIX=/usr):
#   topoplace-daemon        topoplaced, its unit, service user, /etc/topoplace/topoplaced.conf
#   topoplace-cli           topoplace (operators, submit hosts, CI that exports topologies)
#   topoplace-agent         topoplace-agent with its unit and timer (every GPU node)
#   topoplace-slurm-plugin  spank_topoplace.so in Slurm's plugin directory, example configs
#   topoplace-k8s-extender  the kube-scheduler extender and the example manifests
# Depends come from the binaries' shared libraries (dpkg-shlibdeps).
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "topoplace")
set(CPACK_PACKAGE_VENDOR "topoplace")
set(CPACK_PACKAGE_CONTACT "topoplace maintainers <topoplace@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Topology-aware placement for GPU training clusters")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL daemon cli agent slurm-plugin k8s-extender)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION "admin")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://localhost/topoplace")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_STRIP_FILES ON)

foreach(component daemon cli agent slurm-plugin k8s-extender)
  string(TOUPPER ${component} upper)
  set(CPACK_DEBIAN_${upper}_PACKAGE_NAME "topoplace-${component}")
endforeach()
set(CPACK_DEBIAN_DAEMON_DESCRIPTION
    "topoplace placement daemon (topoplaced)\n Serves topology, placement and the allocation ledger over gRPC.")
set(CPACK_DEBIAN_CLI_DESCRIPTION
    "topoplace command-line tool\n Fabric import and export, offline placement, simulation, daemon client.")
set(CPACK_DEBIAN_AGENT_DESCRIPTION
    "topoplace host agent\n Reports a GPU node's GPUs, NICs and LLDP neighbors to topoplaced.")
set(CPACK_DEBIAN_SLURM-PLUGIN_DESCRIPTION
    "topoplace SPANK plugin for Slurm\n sbatch --topoplace=tp=..,pp=..,dp=.. places jobs through topoplaced.")
set(CPACK_DEBIAN_K8S-EXTENDER_DESCRIPTION
    "topoplace kube-scheduler extender\n Steers training pod groups to the nodes topoplaced planned.")
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "lldpd")
set(CPACK_DEBIAN_SLURM-PLUGIN_PACKAGE_DEPENDS "slurm-wlm-basic-plugins")

# Maintainer scripts: create the service user, reload systemd, stop on removal; purge
# removes configuration but keeps /var/lib/topoplace (the ledger: acknowledged
# allocations must survive a reinstall).
foreach(component daemon agent)
  string(TOUPPER ${component} upper)
  set(scripts)
  foreach(script postinst prerm postrm)
    set(TOPOPLACE_PACKAGE "topoplace-${component}")
    if(component STREQUAL "daemon")
      set(TOPOPLACE_UNITS "topoplaced.service")
      set(TOPOPLACE_SYSUSERS "topoplace.conf")
      set(TOPOPLACE_USER "topoplace")
      set(TOPOPLACE_HOME "/var/lib/topoplace")
      set(TOPOPLACE_STATE_DIR "/var/lib/topoplace")
      set(TOPOPLACE_EXTRA_GROUP "")
      set(conffiles "${CMAKE_INSTALL_FULL_SYSCONFDIR}/topoplace/topoplaced.conf")
    else()
      set(TOPOPLACE_UNITS "topoplace-agent.timer topoplace-agent.service")
      set(TOPOPLACE_SYSUSERS "topoplace-agent.conf")
      set(TOPOPLACE_USER "topoplace-agent")
      set(TOPOPLACE_HOME "/nonexistent")
      set(TOPOPLACE_STATE_DIR "")
      set(TOPOPLACE_EXTRA_GROUP "_lldpd")
      set(conffiles "${CMAKE_INSTALL_FULL_SYSCONFDIR}/default/topoplace-agent")
    endif()
    configure_file(${CMAKE_SOURCE_DIR}/deploy/packaging/${script}.in
                   ${CMAKE_BINARY_DIR}/packaging/${component}/${script} @ONLY
                   FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                                    GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    list(APPEND scripts ${CMAKE_BINARY_DIR}/packaging/${component}/${script})
  endforeach()
  # Files under /etc are the operator's: dpkg keeps their edits across upgrades.
  file(WRITE ${CMAKE_BINARY_DIR}/packaging/${component}/conffiles "${conffiles}\n")
  list(APPEND scripts ${CMAKE_BINARY_DIR}/packaging/${component}/conffiles)
  set(CPACK_DEBIAN_${upper}_PACKAGE_CONTROL_EXTRA ${scripts})
  set(CPACK_DEBIAN_${upper}_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
endforeach()

include(CPack)
