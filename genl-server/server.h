/* tapdpd's control thread: the listening socket, the shim connections (one
 * emulated netlink socket each), the kernel's link events, and the loop that
 * serves them until a signal asks it to stop.
 *
 * Everything here runs on the one control thread. */
#ifndef TAPDP_SERVER_H
#define TAPDP_SERVER_H

/* Binds the socket at path. -EADDRINUSE when another daemon answers there;
 * a stale socket file is replaced. */
int server_open(const char *path);
/* Serves until SIGTERM or SIGINT; returns 0 or -errno. */
int server_run(void);
/* Deletes every datapath, closes every connection, removes the socket. */
void server_close(void);

#endif
