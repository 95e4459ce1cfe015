/*
 * clock.c - what every part of the daemon asks and nothing here asks
 * back: the signals (their flags, blocked while working and let through
 * while waiting), the clock (the mails' under replay) and the back-off
 * between tries.  A leaf: it calls no other file of daemon/.
 */
#include "autoconf.h"
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "daemon/daemon_p.h"
#include "lib/backoff.h"

volatile sig_atomic_t daemon_got_stop, daemon_got_reload;

static void on_stop(int sig)
{
	(void)sig;
	daemon_got_stop = 1;
}

static void on_reload(int sig)
{
	(void)sig;
	daemon_got_reload = 1;
}

static const int handled_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE };

void daemon_signals_install(struct signals *s)
{
	sigset_t ours;

	daemon_got_stop = daemon_got_reload = 0;
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		/* No SA_RESTART: a sleep must end when a signal comes. */
		sa.sa_handler = handled_signals[i] == SIGHUP ? on_reload :
				handled_signals[i] == SIGPIPE ? SIG_IGN : on_stop;
		sigaction(handled_signals[i], &sa, &s->old[i]);
	}
	sigemptyset(&ours);
	sigaddset(&ours, SIGTERM);
	sigaddset(&ours, SIGINT);
	sigaddset(&ours, SIGHUP);
	sigprocmask(SIG_BLOCK, &ours, &s->saved);
	sigprocmask(SIG_BLOCK, NULL, &s->run_mask);
	s->wait_mask = s->run_mask;
	sigdelset(&s->wait_mask, SIGTERM);
	sigdelset(&s->wait_mask, SIGINT);
	sigdelset(&s->wait_mask, SIGHUP);
}

void daemon_signals_restore(struct signals *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaction(handled_signals[i], &s->old[i], NULL);
	sigprocmask(SIG_SETMASK, &s->saved, NULL);
}

void daemon_signals_deliver(const struct signals *s)
{
	sigprocmask(SIG_SETMASK, &s->wait_mask, NULL);
	sigprocmask(SIG_SETMASK, &s->run_mask, NULL);
}

void daemon_sleep_for(const struct signals *s, double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	ppoll(NULL, 0, &ts, &s->wait_mask);
}

time_t daemon_now(const struct daemon *d)
{
	return d->clock ? d->clock : time(NULL);
}

void daemon_jobctx(struct jobctx *c, struct daemon *d, struct source *src)
{
	c->d = d;
	c->b = &d->pipeline.b;
	c->src = src;
	c->f = src ? src->f : NULL;
	c->now = daemon_now(d);
}

double daemon_backoff_next(unsigned *n)
{
	uint32_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint32_t)time(NULL) * 2654435761u;
	return backoff_delay((*n)++, DAEMON_BACKOFF_MIN_S, DAEMON_BACKOFF_MAX_S, true,
			     r / 4294967296.0);
}
