# PM_SANITIZER: --enable-sanitizer=address,undefined builds everything with those sanitizers.
AC_DEFUN([PM_SANITIZER], [
	AC_ARG_ENABLE([sanitizer],
		[AS_HELP_STRING([--enable-sanitizer=LIST], [build with -fsanitize=LIST (e.g. address,undefined)])],
		[], [enable_sanitizer=no])
	SAN_CFLAGS=""
	AS_IF([test "x$enable_sanitizer" != xno],
		[SAN_CFLAGS="-fsanitize=$enable_sanitizer -fno-omit-frame-pointer -fno-sanitize-recover=all"])
	AC_SUBST([SAN_CFLAGS])
])
