# PM_SLURM: find <slurm/spank.h> (Slurm 22.05 or newer) and the plugin directory.
#
# --with-slurm=PREFIX          a Slurm installation (headers in PREFIX/include)
# --with-slurm-plugindir=DIR   where `make install` puts postmortem.so
#
# Headers: PREFIX/include, else pkg-config `slurm` where a release ships slurm.pc, else the
# compiler's default path (Debian's libslurm-dev, RHEL's slurm-devel).  Debian has no slurm.pc.
#
# Plugin directory: --with-slurm-plugindir, else relative to ${libdir} (so that `make
# distcheck` stays inside its prefix) in the layout of the Slurm found on this machine: ${libdir}/slurm-wlm where
# Debian's /usr/lib/<multiarch>/slurm-wlm exists, ${libdir}/slurm otherwise (RHEL:
# /usr/lib64/slurm with --libdir=/usr/lib64).  Slurm's own plugin directory on this machine,
# when one is found, is also recorded as PM_SLURM_PLUGINDIR (`postmortem doctor` resolves
# relative plugstack paths against it when slurm.conf sets no PluginDir).
AC_DEFUN([PM_SLURM], [
	AC_ARG_WITH([slurm],
		[AS_HELP_STRING([--with-slurm=PREFIX], [Slurm installation prefix (headers in PREFIX/include)])],
		[SLURM_CPPFLAGS="-I$withval/include"; pm_slurm_prefix=$withval],
		[SLURM_CPPFLAGS=""; pm_slurm_prefix=""])
	pm_slurm_pc_libdir=""
	AS_IF([test -z "$pm_slurm_prefix" && test -n "$PKG_CONFIG"],
		[PKG_CHECK_EXISTS([slurm],
			[SLURM_CPPFLAGS=`$PKG_CONFIG --cflags-only-I slurm`
			 pm_slurm_pc_libdir=`$PKG_CONFIG --variable=libdir slurm`])])
	save_CPPFLAGS="$CPPFLAGS"
	CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
	AC_CHECK_HEADER([slurm/spank.h], [have_spank=yes], [have_spank=no])
	AS_IF([test "x$have_spank" = xyes], [
		AC_MSG_CHECKING([whether Slurm's headers are 22.05 or newer])
		AC_PREPROC_IFELSE([AC_LANG_SOURCE([[
#include <slurm/slurm_version.h>
#if !defined(SLURM_VERSION_NUMBER) || SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)
#error too old
#endif
]])], [AC_MSG_RESULT([yes])],
			[AC_MSG_RESULT([no])
			 AC_MSG_WARN([Slurm's headers are older than 22.05: the SPANK plugin is not built])
			 have_spank=no])])
	CPPFLAGS="$save_CPPFLAGS"
	AC_SUBST([SLURM_CPPFLAGS])
	AM_CONDITIONAL([HAVE_SPANK], [test "x$have_spank" = xyes])

	# Slurm's own plugin directory on this machine, for the doctor's fallback
	pm_multiarch=`$CC -print-multiarch 2>/dev/null`
	pm_slurm_sysdir=""
	for pm_d in ${pm_slurm_pc_libdir:+$pm_slurm_pc_libdir/slurm} \
		${pm_slurm_prefix:+$pm_slurm_prefix/lib64/slurm} ${pm_slurm_prefix:+$pm_slurm_prefix/lib/slurm} \
		${pm_multiarch:+/usr/lib/$pm_multiarch/slurm-wlm} /usr/lib64/slurm /usr/lib/slurm-wlm /usr/lib/slurm; do
		AS_IF([test -d "$pm_d"], [pm_slurm_sysdir=$pm_d; break])
	done
	AS_IF([test -z "$pm_slurm_sysdir"],
		[AS_IF([test -n "$pm_multiarch"],
			[pm_slurm_sysdir=/usr/lib/$pm_multiarch/slurm-wlm],
			[pm_slurm_sysdir=/usr/lib64/slurm])])
	AC_DEFINE_UNQUOTED([PM_SLURM_PLUGINDIR], ["$pm_slurm_sysdir"],
		[Slurm's plugin directory on the build machine (doctor's default PluginDir)])

	AC_ARG_WITH([slurm-plugindir],
		[AS_HELP_STRING([--with-slurm-plugindir=DIR], [where to install postmortem.so (default: Slurm's layout under ${libdir})])],
		[slurmplugindir="$withval"],
		[AS_CASE([$pm_slurm_sysdir],
			[*/slurm-wlm], [slurmplugindir='${libdir}/slurm-wlm'],
			[slurmplugindir='${libdir}/slurm'])])
	AC_SUBST([slurmplugindir])
	AC_MSG_CHECKING([where postmortem.so will be installed])
	AC_MSG_RESULT([$slurmplugindir (Slurm on this machine loads plugins from $pm_slurm_sysdir)])
])
