# RPM macros that RHEL/Oracle Linux/Rocky/Alma 9 define and Debian's rpm
# package lacks, so that packaging/build-rpm.sh can run rpmbuild on the
# spec on a Debian machine (CI). On EL these come from systemd-rpm-macros
# (/usr/lib/rpm/macros.d/macros.systemd, systemd 252) and redhat-rpm-config;
# the values and expansions below are theirs. Never used on EL itself.

# Paths (EL's rpm and redhat-rpm-config; Debian's rpm has /usr/com here).
%_sharedstatedir /var/lib
%_docdir %{_datadir}/doc
%_pkgdocdir %{_docdir}/%{name}

# systemd-rpm-macros: the directories...
%_systemd_util_dir /usr/lib/systemd
%_unitdir /usr/lib/systemd/system
%_presetdir /usr/lib/systemd/system-preset
%_tmpfilesdir /usr/lib/tmpfiles.d
%_sysctldir /usr/lib/sysctl.d

# ...the scriptlet dependencies...
%systemd_requires \
Requires(post): systemd \
Requires(preun): systemd \
Requires(postun): systemd \
%{nil}

# ...and the scriptlets: on first install the unit takes its preset
# (systemd-update-helper runs `systemctl --no-reload preset`), on removal
# it is disabled; an upgrade leaves its state alone.
%systemd_post() \
if [ $1 -eq 1 ] && [ -x "/usr/lib/systemd/systemd-update-helper" ]; then \
    # Initial installation \
    /usr/lib/systemd/systemd-update-helper install-system-units %{?*} || : \
fi \
%{nil}

%systemd_preun() \
if [ $1 -eq 0 ] && [ -x "/usr/lib/systemd/systemd-update-helper" ]; then \
    # Package removal, not upgrade \
    /usr/lib/systemd/systemd-update-helper remove-system-units %{?*} || : \
fi \
%{nil}

%systemd_postun() %{nil}

%tmpfiles_create() \
command -v systemd-tmpfiles >/dev/null && systemd-tmpfiles --create %{?*} || : \
%{nil}

# EL's redhat-rpm-config builds -debuginfo and -debugsource packages
# (find-debuginfo strips the binary in the main package): its macros.
%_enable_debug_packages 1
%_debugsource_packages 1
%install %{?_enable_debug_packages:%{?buildsubdir:%{debug_package}}}\
%%install\
%{nil}
# EL names doc and license directories without the version.
%_docdir_fmt %%{NAME}
# EL's /bin/sh is bash; Debian's rpm runs brp-compress (bash's `read -d`
# under #!/bin/sh) with dash, which compresses no man page.
%__brp_compress /bin/bash %{_rpmconfigdir}/brp-compress %{?_prefix}
