# PM_MIMALLOC: the postmortem command is linked with mimalloc (Debian: libmimalloc-dev) where
# it is found.  A merge of thousands of node bundles makes and frees millions of small blocks
# on worker threads and hands them to the caller's thread: the C library's allocator spent a
# sixth of a 16,384-node merge in malloc and free (bench/README.md, issue 18).  Only the
# command: the SPANK plugin runs inside slurmstepd and the collector is short-lived, and
# neither replaces the allocator of the process it is in.  Never with --enable-sanitizer
# (the sanitizers bring their own allocator); --without-mimalloc keeps the C library's.
AC_DEFUN([PM_MIMALLOC], [
	AC_ARG_WITH([mimalloc],
		[AS_HELP_STRING([--without-mimalloc],
			[link the postmortem command with the C library's malloc (default: mimalloc where found, never with --enable-sanitizer)])],
		[], [with_mimalloc=check])
	MIMALLOC_LIBS=""
	AS_IF([test "x$enable_sanitizer" != xno],
		[AS_IF([test "x$with_mimalloc" = xyes],
			[AC_MSG_ERROR([--with-mimalloc and --enable-sanitizer exclude each other])])
		 with_mimalloc=no])
	AS_IF([test "x$with_mimalloc" != xno],
		[AC_CHECK_LIB([mimalloc], [mi_version], [MIMALLOC_LIBS=-lmimalloc],
			[AS_IF([test "x$with_mimalloc" = xyes],
				[AC_MSG_ERROR([mimalloc was asked for and not found (Debian: libmimalloc-dev)])])])])
	AC_SUBST([MIMALLOC_LIBS])
])
