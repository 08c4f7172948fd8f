/* SPDX-License-Identifier: MIT */
/*
 * isp_sort.h - a sort a command can stop (isp_dev_exec_cancel()): for a
 * total order (no two elements compare equal) it gives qsort's array.
 * Private to hw-model.
 */
#ifndef ISP_SORT_H
#define ISP_SORT_H

#include <stdatomic.h>
#include <stddef.h>

/* Elements sorted (or merged) between two reads of the stop flag. */
#define ISP_SORT_RUN 65536u

/*
 * isp_sort_stop() - sort @n elements of @size bytes at @base by @cmp, a
 * total order: runs of ISP_SORT_RUN by qsort, merged pairwise, @stop
 * (NULL: never) read between runs and every ISP_SORT_RUN merged elements.
 * @tmp: scratch of @n * @size bytes (the caller's, so it can be charged to
 * the command's buffer budget); only used when n > ISP_SORT_RUN and @stop.
 * Return: 0, -ECANCELED (the array is then in no particular order).
 */
int isp_sort_stop(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
		  const atomic_int *stop, void *tmp);

#endif /* ISP_SORT_H */
