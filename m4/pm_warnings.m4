# PM_WARNINGS: the warning flags every build uses; --enable-werror turns them into errors.
AC_DEFUN([PM_WARNINGS], [
	AC_ARG_ENABLE([werror],
		[AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])])
	PM_CFLAGS="-Wall -Wextra -Wshadow -Wformat=2 -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter"
	AS_IF([test "x$enable_werror" = xyes], [PM_CFLAGS="$PM_CFLAGS -Werror"])
	AC_SUBST([PM_CFLAGS])
])
