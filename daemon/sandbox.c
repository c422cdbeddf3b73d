/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "daemon/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/log.h"
#include "daemon/syscall-names.h"

#if defined(__x86_64__)
#define SANDBOX_ARCH	AUDIT_ARCH_X86_64
#define SYSCALL_RET(uc)	((uc)->uc_mcontext.gregs[REG_RAX])
#elif defined(__aarch64__)
#define SANDBOX_ARCH	AUDIT_ARCH_AARCH64
#define SYSCALL_RET(uc)	((uc)->uc_mcontext.regs[0])
#else
#error "daemon/sandbox.c: no system call policy for this architecture"
#endif

/* asm-generic/siginfo.h's si_code of a seccomp trap; that header clashes
 * with glibc's <signal.h>. */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

#define CAP(c) (UINT64_C(1) << (c))
/* What the daemon uses once set up: TAP devices (TUNSETIFF), interface
 * flags and MTU, rtnetlink changes and namespace ids, the forced socket
 * buffer sizes, and a client's CAP_NET_ADMIN probe, which the kernel
 * judges against the sender too (NET_ADMIN); AF_PACKET and raw IP sockets
 * (NET_RAW); a tunnel's UDP port below 1024 (NET_BIND_SERVICE). */
#define CAPS_USED (CAP(CAP_NET_ADMIN) | CAP(CAP_NET_RAW) | \
		   CAP(CAP_NET_BIND_SERVICE))
/* Permitted, not effective: what only startup needs besides
 * (NETLINK_LISTEN_ALL_NSID), so that an execve() of a new tapdpd, which
 * NO_NEW_PRIVS limits to this process's permitted set, can start. */
#define CAPS_KEPT (CAPS_USED | CAP(CAP_NET_BROADCAST))
/* The namespace agent's (daemon/ns-agent.h): setns(), packet and raw
 * sockets, and reading any process's /proc/PID/fd and mountinfo. */
#define CAPS_AGENT (CAP(CAP_SYS_ADMIN) | CAP(CAP_NET_RAW) | \
		    CAP(CAP_SYS_PTRACE) | CAP(CAP_DAC_READ_SEARCH))

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

/* Every system call the daemon, glibc, glib, liburcu (memb) and libmnl
 * make from startup (a new tapdpd execve()d for an upgrade starts under
 * this filter) to exit, found by reading and under strace -f through the
 * integration suites; and the other forms a C library or an architecture
 * may use for the same call (the *at forms, fstat and statx, ppoll, dup3;
 * clock_gettime, gettimeofday and getcpu when the vDSO cannot answer). */
static const int allowed[] = {
	/* memory */
	__NR_brk, __NR_mmap, __NR_munmap, __NR_mremap, __NR_mprotect,
	__NR_madvise, __NR_membarrier, __NR_memfd_create,
	/* threads and the process */
	__NR_clone, __NR_clone3, __NR_set_robust_list, __NR_set_tid_address,
	__NR_rseq, __NR_futex, __NR_sched_getaffinity, __NR_getcpu,
	__NR_prctl, __NR_getpid, __NR_setsid, __NR_uname, __NR_sysinfo,
	__NR_prlimit64, __NR_getrandom, __NR_capget, __NR_capset,
	__NR_seccomp, __NR_execve, __NR_execveat, __NR_exit, __NR_exit_group,
	/* signals */
	__NR_rt_sigaction, __NR_rt_sigprocmask, __NR_rt_sigreturn,
	__NR_restart_syscall,
	/* time */
	__NR_clock_gettime, __NR_gettimeofday, __NR_timerfd_create,
	__NR_timerfd_settime,
	/* files and descriptors */
	__NR_openat, __NR_close, __NR_read, __NR_write, __NR_readv,
	__NR_writev, __NR_pread64, __NR_lseek, __NR_fstat, __NR_newfstatat,
	__NR_statx, __NR_getdents64, __NR_faccessat, __NR_faccessat2,
	__NR_mkdirat, __NR_unlinkat, __NR_fchmodat, __NR_ftruncate,
	__NR_fcntl, __NR_ioctl, __NR_dup3, __NR_pipe2, __NR_eventfd2,
	/* the journal's compaction, and what a successor started by an
	 * upgrade's execve() does before it sandboxes itself: its path,
	 * waiting for the keeper, a new keeper's start */
	__NR_fallocate, __NR_readlinkat, __NR_clock_nanosleep,
	__NR_close_range,
	/* waiting */
	__NR_ppoll, __NR_epoll_create1, __NR_epoll_ctl, __NR_epoll_pwait,
	/* sockets */
	__NR_socket, __NR_bind, __NR_connect, __NR_listen, __NR_accept4,
	__NR_getsockname, __NR_getsockopt, __NR_setsockopt, __NR_sendto,
	__NR_recvfrom, __NR_sendmsg, __NR_recvmsg, __NR_sendmmsg,
	__NR_recvmmsg, __NR_socketpair,
	/* the namespace agent's; the daemon has no CAP_SYS_ADMIN for it */
	__NR_setns,
	/* the fast path's maps */
	__NR_bpf,
#ifdef SANITIZED
	/* ASan and LSan: alternate signal stacks, thread ids, spin locks
	 * that yield, and the leak check at exit, which stops the threads
	 * with ptrace() from a clone that lists them and waits for them. */
	__NR_sigaltstack, __NR_gettid, __NR_getppid, __NR_sched_yield,
	__NR_ptrace, __NR_wait4,
#endif
#ifdef __x86_64__
	/* the legacy forms glibc still uses there */
	__NR_arch_prctl, __NR_open, __NR_access, __NR_mkdir, __NR_unlink,
	__NR_chmod, __NR_dup2, __NR_poll, __NR_time, __NR_readlink,
	__NR_nanosleep,
#ifdef SANITIZED
	__NR_getdents,
#endif
#endif
};

/* Allowed only towards the daemon itself (the first argument is its
 * pid): raise(), abort() and pthread_kill() send with tgkill. */
static const int allowed_self[] = { __NR_kill, __NR_tgkill };

/* Calls refused and not yet reported: a bit per number, and the last
 * number beyond them. Set by the handler, taken by sandbox_report(). */
#define REFUSED_BITS 1024
static uint64_t refused[REFUSED_BITS / 64];
static long refused_beyond = -1;
_Static_assert(__atomic_always_lock_free(sizeof(uint64_t), 0) &&
	       __atomic_always_lock_free(sizeof(long), 0),
	       "the SIGSYS handler needs lock-free atomics");

/* Keeps kept of the capabilities (bounding and permitted), used of them
 * effective. */
static int
caps_limit(uint64_t kept, uint64_t used)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	uint64_t permitted, eff;
	bool bounded = true;
	int in;

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	permitted = d[0].permitted | (uint64_t)d[1].permitted << 32;
	/* The bounding set first: dropping from it takes CAP_SETPCAP. */
	for (unsigned c = 0; c < 64 && (in = prctl(PR_CAPBSET_READ, c)) >= 0;
	     c++) {
		if (!in || (kept & CAP(c)))
			continue;
		if (prctl(PR_CAPBSET_DROP, c) == 0)
			continue;
		if (errno != EPERM)
			return -errno;
		bounded = false;
	}
	/* With nothing permitted (the keeper's) under NO_NEW_PRIVS, the
	 * bounding set bounds nothing: no need to say it stayed. */
	if (!bounded && kept)
		log_warn("sandbox: no CAP_SETPCAP, the bounding set stays as "
			 "it was (NO_NEW_PRIVS still keeps an execve() from "
			 "gaining capabilities)");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return -errno;
	permitted &= kept;
	eff = permitted & used;
	for (unsigned i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		d[i] = (struct __user_cap_data_struct) {
			.effective = (uint32_t)(eff >> 32 * i),
			.permitted = (uint32_t)(permitted >> 32 * i),
		};
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* The filter: the native architecture's calls in allowed[], those in
 * allowed_self[] towards pid, and a trap for any other; a call of another
 * ABI (i386, x32) kills the process, for the daemon makes none. */
static int
filter_install(pid_t pid)
{
	enum { HEAD = 6, PER_ALLOWED = 2, PER_SELF = 5 };
	struct sock_filter f[HEAD + PER_ALLOWED * sizeof(allowed) / sizeof(int) +
			     PER_SELF * sizeof(allowed_self) / sizeof(int) + 1];
	struct sock_fprog prog = { .filter = f };
	unsigned n = 0;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		SANDBOX_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
		__X32_SYSCALL_BIT, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_KILL_PROCESS);
#endif
	for (unsigned i = 0; i < sizeof(allowed) / sizeof(int); i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			allowed[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ALLOW);
	}
	for (unsigned i = 0; i < sizeof(allowed_self) / sizeof(int); i++) {
		/* The argument's low half: a pid is an int. */
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			allowed_self[i], 0, 4);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, args[0]));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			(uint32_t)pid, 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ALLOW);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_TRAP);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_TRAP);
	prog.len = n;
	/* The kernel's audit log records each refusal too: the one record
	 * where a thread blocking SIGSYS makes the trap kill the process. */
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_LOG, &prog) < 0 ? -errno : 0;
}

/* A trapped call: it returns -EPERM, and its number is recorded. Other
 * SIGSYS (kill -SYS) change nothing. */
static void
on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	unsigned long nr = (unsigned)si->si_syscall;

	(void)sig;
	if (si->si_code != SYS_SECCOMP)
		return;
	SYSCALL_RET(uc) = -EPERM;
	if (nr < REFUSED_BITS)
		__atomic_fetch_or(&refused[nr / 64], UINT64_C(1) << nr % 64,
				  __ATOMIC_RELAXED);
	else
		__atomic_store_n(&refused_beyond, (long)nr, __ATOMIC_RELAXED);
}

static bool
one_thread(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return false;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n == 1;
}

static int
apply(uint64_t kept, uint64_t used)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys,
				.sa_flags = SA_SIGINFO };
	sigset_t sys;
	int err;

	if (!one_thread()) {
		log_err("sandbox: more than one thread (or no /proc/self/task)");
		return -EBUSY;
	}
	err = caps_limit(kept, used);
	if (err) {
		log_err("sandbox: capabilities: %s", strerror(-err));
		return err;
	}
	sigemptyset(&sys);
	sigaddset(&sys, SIGSYS);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    sigaction(SIGSYS, &sa, NULL) < 0 ||
	    sigprocmask(SIG_UNBLOCK, &sys, NULL) < 0) {
		err = -errno;
		log_err("sandbox: %s", strerror(-err));
		return err;
	}
	err = filter_install(getpid());
	if (err)
		log_err("sandbox: seccomp filter: %s", strerror(-err));
	return err;
}

int
sandbox_apply(bool bpf)
{
	/* The fast path's map updates and lookups (datapath/fastpath.h):
	 * every bpf() call needs CAP_BPF where unprivileged BPF is off. */
	uint64_t more = bpf ? CAP(CAP_BPF) : 0;

	return apply(CAPS_KEPT | more, CAPS_USED | more);
}

int
sandbox_apply_keeper(void)
{
	return apply(0, 0);
}

int
sandbox_apply_agent(void)
{
	return apply(CAPS_AGENT, CAPS_AGENT);
}

static void
log_refused(long nr)
{
	const char *name = syscall_name(nr);

	log_err("seccomp: refused system call %s/%ld", name ? name : "?", nr);
}

unsigned
sandbox_report(void)
{
	unsigned n = 0;
	long beyond;

	for (unsigned w = 0; w < sizeof(refused) / sizeof(refused[0]); w++) {
		uint64_t bits = __atomic_exchange_n(&refused[w], 0,
						    __ATOMIC_RELAXED);

		for (; bits; bits &= bits - 1, n++)
			log_refused(w * 64L + __builtin_ctzll(bits));
	}
	beyond = __atomic_exchange_n(&refused_beyond, -1, __ATOMIC_RELAXED);
	if (beyond >= 0) {
		log_refused(beyond);
		n++;
	}
	return n;
}

/* keyctl: the daemon has no use for the kernel's keyrings, sanitizer
 * builds neither. */
static void *
forbidden_call(void *refused_ok)
{
	long r = syscall(__NR_keyctl, 0, 0, 0, 0, 0);

	*(bool *)refused_ok = r < 0 && errno == EPERM;
	return NULL;
}

bool
sandbox_check(void)
{
	bool here = false, there = false;
	pthread_t t;
	unsigned n;

	forbidden_call(&here);
	if (pthread_create(&t, NULL, forbidden_call, &there) == 0)
		pthread_join(t, NULL);
	n = sandbox_report();
	printf("keyctl on the main thread: %s\n", here ? "EPERM" : "not refused");
	printf("keyctl on a new thread: %s\n", there ? "EPERM" : "not refused");
	printf("refused calls logged: %u\n", n);
	return here && there && n == 1;
}
