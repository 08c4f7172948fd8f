/* SPDX-License-Identifier: MIT */
/*
 * isp_sort.c - the stoppable sort (isp_sort.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isp_sort.h"

static int isp_sort_stopped(const atomic_int *stop)
{
	return atomic_load_explicit(stop, memory_order_relaxed) != 0;
}

int isp_sort_stop(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
		  const atomic_int *stop, void *tmp)
{
	uint8_t *src = base, *dst = tmp, *sw;
	size_t w, lo, i, j, o, mid, hi;

	if (n <= ISP_SORT_RUN || !stop || !tmp) {
		qsort(base, n, size, cmp);
		return 0;
	}
	for (lo = 0; lo < n; lo += ISP_SORT_RUN) {
		if (isp_sort_stopped(stop))
			return -ECANCELED;
		qsort(src + lo * size, n - lo < ISP_SORT_RUN ? n - lo : ISP_SORT_RUN, size, cmp);
	}
	for (w = ISP_SORT_RUN; w < n; w *= 2) {
		for (lo = 0, o = 0; lo < n; lo += 2 * w) {
			mid = lo + w < n ? lo + w : n;
			hi = lo + 2 * w < n ? lo + 2 * w : n;
			for (i = lo, j = mid; i < mid || j < hi; o++) {
				const uint8_t *pick;

				if (!(o % ISP_SORT_RUN) && isp_sort_stopped(stop))
					return -ECANCELED;
				if (j >= hi || (i < mid && cmp(src + i * size, src + j * size) < 0))
					pick = src + i++ * size;
				else
					pick = src + j++ * size;
				memcpy(dst + o * size, pick, size);
			}
		}
		sw = src;
		src = dst;
		dst = sw;
	}
	if (src != (uint8_t *)base)
		memcpy(base, src, n * size);
	return 0;
}
