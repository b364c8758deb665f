/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point they
 * define, and FUZZ_CHECK for invariants (a broken one aborts, which
 * libFuzzer and the corpus replay both report as a crash).
 */
#ifndef NFSWB_FUZZ_H
#define NFSWB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s\n",\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif
