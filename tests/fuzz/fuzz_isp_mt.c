/* SPDX-License-Identifier: MIT */
/*
 * fuzz_isp_mt.c - libFuzzer harness, multi-threaded: the input (after the
 * geometry byte) is cut into FZ_THREADS slices, each decoded as its own
 * command sequence by its own thread against one shared drive, as guest
 * queues do. The per-command invariants hold on every thread; at the end
 * the drive must empty out with nothing leaked. Races show as ASan/UBSan
 * reports or broken invariants (run a TSan build by hand for data races).
 */
#include "fuzz_isp.h"

#define FZ_THREADS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_thread {
	struct fz_state st;
	struct fz_src src;
	pthread_t th;
};

static void *fz_thread_main(void *arg)
{
	struct fz_thread *t = arg;
	unsigned steps;

	for (steps = 0; steps < FZ_MAX_STEPS / FZ_THREADS && !fz_done(&t->src); steps++)
		fz_step(&t->st, &t->src);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_thread t[FZ_THREADS];
	struct fz_state main_st;
	size_t slice, i, j;

	if (size < 1 + FZ_THREADS)
		return 0;
	fz_setup(&main_st, data[0]);
	slice = (size - 1) / FZ_THREADS;
	for (i = 0; i < FZ_THREADS; i++) {
		/* each thread knows the fixtures; the deploy-only data stays main's */
		t[i].st = main_st;
		for (j = 0; j < FZ_MAX_OBJS; j++) {
			t[i].st.obj[j].csize = NULL;
			t[i].st.obj[j].docs = NULL;
		}
		t[i].st.clk = &main_st.clock;
		t[i].st.shared = 1;
		t[i].st.next_ticket = (uint32_t)(i + 1) << 24;	/* own tickets, mostly */
		memset(&t[i].src, 0, sizeof(t[i].src));
		t[i].src.p = data + 1 + i * slice;
		t[i].src.n = slice;
		if (pthread_create(&t[i].th, NULL, fz_thread_main, &t[i]))
			FZ_FAIL("pthread_create");
	}
	for (i = 0; i < FZ_THREADS; i++) {
		pthread_join(t[i].th, NULL);
		for (j = 0; j < FZ_MAX_OBJS; j++) {
			free(t[i].st.obj[j].csize != main_st.obj[j].csize ? t[i].st.obj[j].csize : NULL);
			free(t[i].st.obj[j].docs != main_st.obj[j].docs ? t[i].st.obj[j].docs : NULL);
		}
		fz_release(&main_st, ((uint32_t)(i + 1) << 24) + 1, t[i].st.next_ticket);
	}
	fz_finish(&main_st);
	return 0;
}
