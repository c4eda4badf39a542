# Where an installed topoplace puts its files, one CMake component per Debian package
# (cmake/Packaging.cmake): daemon, cli, agent, slurm-plugin, k8s-extender. Paths follow the
# FHS and Debian's layout; configure with -DCMAKE_INSTALL_PREFIX=/usr for packages.
# A system service: the packages, the units and the docs say /usr/sbin/topoplaced and
# /etc/topoplace, so /usr is the default prefix (set at the top of CMakeLists.txt, before
# anything can fail; -DCMAKE_INSTALL_PREFIX=... overrides).
include(GNUInstallDirs)

# Debian's Slurm loads plugins from its own directory (slurm-wlm-basic-plugins puts its
# plugins in /usr/lib/<multiarch>/slurm-wlm), so plugstack.conf can name the plugin bare.
set(TOPOPLACE_SLURM_PLUGIN_DIR "${CMAKE_INSTALL_LIBDIR}/slurm-wlm"
    CACHE STRING "Where the SPANK plugin is installed, relative to the prefix")
# systemd looks for vendor units and sysusers.d files under /usr/lib (usrmerge).
set(TOPOPLACE_SYSTEMD_UNIT_DIR "lib/systemd/system")
set(TOPOPLACE_SYSUSERS_DIR "lib/sysusers.d")

install(TARGETS topoplaced RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR} COMPONENT daemon)
install(TARGETS topoplace RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(TARGETS topoplace-agent RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR} COMPONENT agent)
install(TARGETS topoplace-k8s-extender RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT k8s-extender)
install(TARGETS spank_topoplace LIBRARY DESTINATION ${TOPOPLACE_SLURM_PLUGIN_DIR}
        COMPONENT slurm-plugin)

# Units name the installed binaries; configure them with the real paths.
foreach(unit topoplaced topoplace-agent)
  configure_file(${CMAKE_SOURCE_DIR}/deploy/systemd/${unit}.service.in
                 ${CMAKE_BINARY_DIR}/deploy/systemd/${unit}.service @ONLY)
endforeach()
install(FILES ${CMAKE_BINARY_DIR}/deploy/systemd/topoplaced.service
        DESTINATION ${TOPOPLACE_SYSTEMD_UNIT_DIR} COMPONENT daemon)
install(FILES deploy/systemd/topoplace.sysusers.conf RENAME topoplace.conf
        DESTINATION ${TOPOPLACE_SYSUSERS_DIR} COMPONENT daemon)
install(FILES deploy/systemd/topoplace-agent.sysusers.conf RENAME topoplace-agent.conf
        DESTINATION ${TOPOPLACE_SYSUSERS_DIR} COMPONENT agent)
install(FILES deploy/systemd/topoplace-agent.timer
        DESTINATION ${TOPOPLACE_SYSTEMD_UNIT_DIR} COMPONENT agent)
install(FILES deploy/topoplaced.conf.example RENAME topoplaced.conf
        DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/topoplace COMPONENT daemon)
install(FILES ${CMAKE_BINARY_DIR}/deploy/systemd/topoplace-agent.service
        DESTINATION ${TOPOPLACE_SYSTEMD_UNIT_DIR} COMPONENT agent)
install(FILES deploy/systemd/topoplace-agent.default RENAME topoplace-agent
        DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/default COMPONENT agent)
install(FILES deploy/slurm/plugstack.conf deploy/slurm/slurm.conf.snippet
              deploy/slurm/job_submit.lua deploy/slurm/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/slurm COMPONENT slurm-plugin)
install(PROGRAMS deploy/slurm/topoplace-epilog-slurmctld.sh
        DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/topoplace COMPONENT slurm-plugin)
install(DIRECTORY deploy/k8s/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/k8s COMPONENT k8s-extender)
