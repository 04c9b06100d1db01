# PM_SLURM: find <slurm/spank.h> (no slurm.pc exists) and the plugin directory.
# --with-slurm=PREFIX names a Slurm installation; --with-slurm-plugindir=DIR the plugin dir.
AC_DEFUN([PM_SLURM], [
	AC_ARG_WITH([slurm],
		[AS_HELP_STRING([--with-slurm=PREFIX], [Slurm installation prefix (headers in PREFIX/include)])],
		[SLURM_CPPFLAGS="-I$withval/include"], [SLURM_CPPFLAGS=""])
	save_CPPFLAGS="$CPPFLAGS"
	CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
	AC_CHECK_HEADER([slurm/spank.h], [have_spank=yes], [have_spank=no])
	CPPFLAGS="$save_CPPFLAGS"
	AC_SUBST([SLURM_CPPFLAGS])
	AM_CONDITIONAL([HAVE_SPANK], [test "x$have_spank" = xyes])
	AC_ARG_WITH([slurm-plugindir],
		[AS_HELP_STRING([--with-slurm-plugindir=DIR], [where to install postmortem.so])],
		[slurmplugindir="$withval"],
		[AS_IF([test -d /usr/lib/x86_64-linux-gnu/slurm-wlm],
			[slurmplugindir='${libdir}/slurm-wlm'],
			[slurmplugindir='${libdir}/slurm'])])
	AC_SUBST([slurmplugindir])
])
