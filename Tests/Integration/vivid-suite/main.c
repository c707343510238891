/* ccore-vivid-suite: the C core against the kernel's vivid driver.
 *
 *   ccore-vivid-suite [TEST ...]     run all tests, or only the named ones
 *   ccore-vivid-suite --list         print the test names
 *
 * Each test runs in a forked child (so a crash or a hang in the core fails that test
 * only, and every descriptor the test opened is closed before the next starts), after
 * vivid has been put back into a known state. Output: one `PASS name` or
 * `FAIL name: reason` line per test, then `N passed, N failed`; the exit code is 1
 * when any test failed. */
#include "suite.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    const char *name;
    test_fn fn;
    int timeout_s;
    /* 1: runs with vivid reloaded multiplanar=2 (MPLANE-only nodes, as on SoC boards). */
    int multiplanar;
} test_case;

/* `disconnect` ends each group: it unregisters every vivid node until its last user
 * closes (the reload before the MPLANE group brings them back). The MPLANE group runs
 * the core's multi-planar path through the same checks as the single-planar one. */
static const test_case k_tests[] = {
    {"enumerate", test_enumerate, 60, 0},
    {"negotiate", test_negotiate, 120, 0},
    {"stream", test_stream, 120, 0},
    {"controls", test_controls, 60, 0},
    {"fault_dropped_buffers", test_fault_dropped_buffers, 120, 0},
    {"fault_buf_flag_error", test_fault_buf_flag_error, 90, 0},
    {"fault_streamon_error", test_fault_streamon_error, 60, 0},
    {"fault_reqbufs_error", test_fault_reqbufs_error, 60, 0},
    {"fault_qbuf_error", test_fault_qbuf_error, 60, 0},
    {"fault_qbuf_partial", test_fault_qbuf_partial, 60, 0},
    {"busy", test_busy, 90, 0},
    {"denied", test_denied, 60, 0},
    {"loopback_yuyv", test_loopback_yuyv, 120, 0},
    {"loopback_nv12", test_loopback_nv12, 120, 0},
    {"loopback_rgb24", test_loopback_rgb24, 120, 0},
    {"loopback_bayer", test_loopback_bayer, 120, 0},
    {"fault_fatal_streaming_error", test_fault_fatal_streaming_error, 60, 0},
    {"fault_disconnect", test_fault_disconnect, 60, 0},
    {"mplane_stream", test_mplane_stream, 180, 1},
    {"mplane_controls", test_controls, 60, 1},
    {"mplane_loopback_yuyv", test_mplane_loopback_yuyv, 120, 1},
    {"mplane_loopback_nv12m", test_mplane_loopback_nv12m, 120, 1},
    {"mplane_loopback_bayer", test_mplane_loopback_bayer, 120, 1},
    {"mplane_fault_buf_flag_error", test_fault_buf_flag_error, 90, 1},
    {"mplane_fault_streamon_error", test_fault_streamon_error, 60, 1},
    {"mplane_fault_qbuf_error", test_fault_qbuf_error, 60, 1},
    {"mplane_fault_qbuf_partial", test_fault_qbuf_partial, 60, 1},
    {"mplane_fault_disconnect", test_fault_disconnect, 60, 1},
};
#define TEST_COUNT (sizeof k_tests / sizeof k_tests[0])

static int run_child(const test_case *t, int out_fd) {
    char reason[REASON_MAX] = "";
    char message[512] = "";
    int rc;
    if (vivid_reset(message, sizeof message) < 0) {
        snprintf(reason, sizeof reason, "setting vivid up: %s", message);
        rc = 1;
    } else {
        rc = t->fn(reason, sizeof reason);
    }
    if (rc != 0 && reason[0] == 0) snprintf(reason, sizeof reason, "failed without a reason");
    fflush(stdout);
    size_t len = strlen(reason), off = 0;
    while (off < len) {
        ssize_t w = write(out_fd, reason + off, len - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    return rc != 0;
}

/* Runs one test in a child; returns 0 when it passed, with the reason otherwise. */
static int run_test(const test_case *t, char *reason, size_t reason_size, double *seconds) {
    int pipefd[2];
    reason[0] = 0;
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(reason, reason_size, "pipe: %s", strerror(errno));
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    int64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(reason, reason_size, "fork: %s", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        return 1;
    }
    if (pid == 0) {
        close(pipefd[0]);
        int rc = run_child(t, pipefd[1]);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    close(pipefd[1]);
    size_t used = 0;
    int timed_out = 0;
    int64_t deadline = t0 + (int64_t)t->timeout_s * 1000000000LL;
    for (;;) {
        int64_t left_ms = (deadline - now_ns()) / 1000000LL;
        if (left_ms <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
        int r = poll(&p, 1, (int)(left_ms > 1000 ? 1000 : left_ms));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        ssize_t n = read(pipefd[0], reason + used, reason_size - 1 - used);
        if (n <= 0) break; /* EOF: the child has exited (or closed the pipe) */
        used += (size_t)n;
        if (used >= reason_size - 1) used = reason_size - 1;
    }
    reason[used] = 0;
    close(pipefd[0]);
    int status = 0;
    if (timed_out) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        *seconds = (double)(now_ns() - t0) / 1e9;
        snprintf(reason, reason_size, "timed out after %d s (hung?)", t->timeout_s);
        return 1;
    }
    /* EOF came; the child may still be unwinding. Bound that wait too. */
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (now_ns() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            snprintf(reason, reason_size, "did not exit after finishing (hung in cleanup?) within %d s", t->timeout_s);
            *seconds = (double)(now_ns() - t0) / 1e9;
            return 1;
        }
        sleep_ms(5);
    }
    *seconds = (double)(now_ns() - t0) / 1e9;
    if (WIFSIGNALED(status)) {
        char extra[REASON_MAX];
        snprintf(extra, sizeof extra, "crashed with signal %d (%s)%s%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
                 reason[0] ? " after: " : "", reason);
        snprintf(reason, reason_size, "%s", extra);
        return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (!reason[0]) snprintf(reason, reason_size, "exited with status %d", WEXITSTATUS(status));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < TEST_COUNT; i++) printf("%s\n", k_tests[i].name);
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        int known = 0;
        for (size_t i = 0; i < TEST_COUNT; i++)
            if (strcmp(argv[a], k_tests[i].name) == 0) known = 1;
        if (!known) {
            fprintf(stderr, "unknown test '%s' (see --list)\n", argv[a]);
            return 2;
        }
    }

    char message[512];
    if (find_vivid_nodes(&g_nodes, message, sizeof message) < 0) {
        printf("FAIL setup: %s\n", message);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    info("vivid capture node %s, output node %s", g_nodes.capture, g_nodes.output);

    int passed = 0, failed = 0, multiplanar = 0;
    int64_t t0 = now_ns();
    for (size_t i = 0; i < TEST_COUNT; i++) {
        const test_case *t = &k_tests[i];
        if (argc > 1) {
            int wanted = 0;
            for (int a = 1; a < argc; a++)
                if (strcmp(argv[a], t->name) == 0) wanted = 1;
            if (!wanted) continue;
        }
        char reason[REASON_MAX];
        double seconds = 0;
        int rc;
        if (t->multiplanar != multiplanar) {
            if (vivid_reload(t->multiplanar, message, sizeof message) < 0) {
                printf("FAIL %s: reloading vivid %s: %s\n", t->name, t->multiplanar ? "multiplanar=2" : "single-planar",
                       message);
                failed++;
                continue;
            }
            multiplanar = t->multiplanar;
            info("vivid reloaded %s: capture node %s, output node %s",
                 multiplanar ? "multi-planar (multiplanar=2)" : "single-planar", g_nodes.capture, g_nodes.output);
        }
        rc = run_test(t, reason, sizeof reason, &seconds);
        if (rc == 0) {
            printf("PASS %s\n", t->name);
            passed++;
        } else {
            printf("FAIL %s: %s\n", t->name, reason);
            failed++;
        }
        info("(%s took %.1f s)", t->name, seconds);
    }
    info("suite took %.1f s", (double)(now_ns() - t0) / 1e9);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
