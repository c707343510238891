/* A node streamed by another process (busy) and a node this process may not open
 * (denied). Both need a second process: forked children talk back through pipes. */
#include "suite.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/videodev2.h>

/* Reads up to size-1 bytes until EOF or timeout; returns bytes read or -1 on timeout. */
static int read_with_timeout(int fd, char *buf, size_t size, int timeout_ms, int stop_at_first) {
    size_t used = 0;
    int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000LL;
    for (;;) {
        int64_t left = (deadline - now_ns()) / 1000000LL;
        if (left <= 0) {
            buf[used] = 0;
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        ssize_t n = read(fd, buf + used, size - 1 - used);
        if (n <= 0) break;
        used += (size_t)n;
        if (stop_at_first || used >= size - 1) break;
    }
    buf[used] = 0;
    return (int)used;
}

static int wait_child(pid_t pid, int timeout_ms, int *status) {
    int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000LL;
    while (now_ns() < deadline) {
        if (waitpid(pid, status, WNOHANG) == pid) return 0;
        sleep_ms(5);
    }
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return -1;
}

static void write_all(int fd, const char *s) {
    size_t len = strlen(s), off = 0;
    while (off < len) {
        ssize_t w = write(fd, s + off, len - off);
        if (w <= 0) return;
        off += (size_t)w;
    }
}

/* ------------------------------------------------------------------ busy */

/* The other process: streams the node until told to quit. Reports "R" once streaming,
 * or "E<reason>" if it could not. */
static void busy_child(int report_fd, int quit_fd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, 640, 480, 25);
    ccore_source *src = NULL;
    char msg[300] = "", line[400];
    int r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r == 0) r = ccore_source_start(src);
    if (r != 0) {
        snprintf(line, sizeof line, "Ethe first process could not stream: %s: %s", ccore_error_name(r),
                 src ? ccore_source_error_message(src) : msg);
        write_all(report_fd, line);
        _exit(1);
    }
    ccore_frame_sample s[5];
    if (collect_samples(src, s, 5, 15000) < 5) {
        write_all(report_fd, "Ethe first process got no frames");
        _exit(1);
    }
    write_all(report_fd, "R");
    char c;
    read_with_timeout(quit_fd, &c, 2, 60000, 1);
    ccore_source_destroy(src);
    _exit(0);
}

int test_busy(char *reason, size_t reason_size) {
    int report[2], quit[2];
    if (pipe2(report, O_CLOEXEC) || pipe2(quit, O_CLOEXEC)) FAILF("pipe: %s", strerror(errno));
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) FAILF("fork: %s", strerror(errno));
    if (pid == 0) {
        close(report[0]);
        close(quit[1]);
        busy_child(report[1], quit[0]);
    }
    close(report[1]);
    close(quit[0]);
    int failed = 0, status = 0;
    char got[400];
    if (read_with_timeout(report[0], got, sizeof got, 30000, 1) <= 0) FAILGO(out, "the first process did not report in 30 s");
    if (got[0] != 'R') FAILGO(out, "%s", got + 1);

    int fds0 = count_fds(), maps0 = count_video_maps();
    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, 640, 480, 25);
    ccore_source *src = NULL;
    char msg[256] = "";
    int r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    const char *where = "open";
    if (r == 0) {
        /* A core that requests buffers only at start must fail there. */
        where = "start";
        r = ccore_source_start(src);
        snprintf(msg, sizeof msg, "%s", ccore_source_error_message(src));
        ccore_source_destroy(src);
        src = NULL;
    }
    if (r != -EBUSY)
        FAILGO(out, "%s while another process streams the node returned %s (%d), expected EBUSY: %s", where,
               ccore_error_name(r), r, msg);
    if (!msg[0]) FAILGO(out, "EBUSY from %s came without a message", where);
    info("%s -> EBUSY: %s", where, msg);
    if (count_fds() != fds0 || count_video_maps() != maps0)
        FAILGO(out, "leak after EBUSY: fds %d -> %d, /dev/video mappings %d -> %d", fds0, count_fds(), maps0,
               count_video_maps());

    /* Once the other process lets go, the node is ours. */
    write_all(quit[1], "Q");
    close(quit[1]);
    quit[1] = -1;
    if (wait_child(pid, 15000, &status) != 0) FAILGO(out, "the first process did not stop within 15 s");
    pid = -1;
    ccore_source *mine = NULL;
    r = ccore_source_open_device(g_nodes.capture, &cfg, &mine, msg, sizeof msg);
    if (r == 0) r = ccore_source_start(mine);
    if (r != 0) {
        snprintf(reason, reason_size, "after the other process stopped: %s: %s", ccore_error_name(r),
                 mine ? ccore_source_error_message(mine) : msg);
        ccore_source_destroy(mine);
        failed = 1;
        goto out;
    }
    ccore_frame_sample s[3];
    uint32_t n = collect_samples(mine, s, 3, 10000);
    ccore_source_destroy(mine);
    if (n < 3) FAILGO(out, "after the other process stopped, only %u samples", n);
out:
    if (quit[1] >= 0) {
        write_all(quit[1], "Q");
        close(quit[1]);
    }
    close(report[0]);
    if (pid > 0) wait_child(pid, 15000, &status);
    return failed;
}

/* ------------------------------------------------------------------ denied */

/* A /dev/v4l/by-id-style name for the node, as long as udev makes them for cameras
 * with wordy USB strings (over 256 bytes, where reasons used to be cut short). */
#define LONG_LINK_DIR "/tmp/ccore-v4l-by-id"
static char g_long_link[400];

static int make_long_link(char *reason, size_t reason_size) {
    snprintf(g_long_link, sizeof g_long_link,
             LONG_LINK_DIR "/usb-Shenzhen_Very_Long_Vendor_Name_Technology_Company_Limited_"
                           "USB_2.0_Full_HD_Wide_Angle_Low_Light_Camera_Module_With_Dual_Microphones_"
                           "SN20260101ABCDEF0123456789_Serial_Number_Continues_Here-video-index0");
    if (mkdir(LONG_LINK_DIR, 0755) != 0 && errno != EEXIST) FAILF("mkdir %s: %s", LONG_LINK_DIR, strerror(errno));
    unlink(g_long_link);
    if (symlink(g_nodes.capture, g_long_link) != 0) FAILF("symlink %s: %s", g_long_link, strerror(errno));
    return 0;
}

/* Checks that a denial names the whole long path and ends with the advice's last words. */
static int whole_reason(const char *what, const char *text, char *line, size_t line_size) {
    const char *tail = "grant access with a udev rule";
    size_t n = strlen(text), t = strlen(tail);
    if (!strstr(text, g_long_link) || n < t || strcmp(text + n - t, tail) != 0) {
        snprintf(line, line_size, "%s for the %zu-byte by-id path is not whole (%zu bytes): \"%s\"", what,
                 strlen(g_long_link), n, text);
        return 1;
    }
    return 0;
}

/* Runs as uid/gid 65534 with no supplementary groups; writes a failure reason, or
 * nothing, to `out_fd`. */
static void denied_child(int out_fd) {
    char line[REASON_MAX];
    line[0] = 0;
    if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
        snprintf(line, sizeof line, "dropping to uid/gid 65534: %s", strerror(errno));
        goto done;
    }
    if (geteuid() != 65534 || getegid() != 65534) {
        snprintf(line, sizeof line, "still euid %d egid %d", (int)geteuid(), (int)getegid());
        goto done;
    }
    ccore_access a = ccore_device_access(g_nodes.capture);
    if (a.status != CCORE_ACCESS_DENIED || a.error != EACCES) {
        snprintf(line, sizeof line, "ccore_device_access as nobody: status %d error %d (%s), expected DENIED/EACCES",
                 (int)a.status, a.error, a.reason);
        goto done;
    }
    if (!strcasestr(a.reason, "video")) {
        snprintf(line, sizeof line, "the denial reason does not name the video group: \"%s\"", a.reason);
        goto done;
    }
    info("access as nobody: DENIED: %s", a.reason);

    ccore_device_info devs[64];
    uint32_t count = 0;
    int r = ccore_device_list(devs, 64, &count);
    int listed = 0;
    for (uint32_t i = 0; r == 0 && i < count && i < 64; i++)
        if (strcmp(devs[i].path, g_nodes.capture) == 0) {
            listed = 1;
            if (devs[i].access.status != CCORE_ACCESS_DENIED) {
                snprintf(line, sizeof line, "ccore_device_list as nobody reports access %d for %s",
                         (int)devs[i].access.status, g_nodes.capture);
                goto done;
            }
        }
    if (!listed) {
        snprintf(line, sizeof line, "ccore_device_list as nobody (%s) leaves out the node it cannot open",
                 ccore_error_name(r));
        goto done;
    }

    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, 640, 480, 25);
    ccore_source *src = NULL;
    char msg[256] = "";
    r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != -EACCES) {
        snprintf(line, sizeof line, "ccore_source_open_device as nobody returned %s, expected EACCES: %s",
                 ccore_error_name(r), msg);
        ccore_source_destroy(src);
        goto done;
    }
    if (!msg[0]) {
        snprintf(line, sizeof line, "EACCES without a message");
        goto done;
    }
    info("open as nobody -> EACCES: %s", msg);

    /* The same through a long by-id name: the reason and the open message whole. */
    ccore_access la = ccore_device_access(g_long_link);
    if (la.status != CCORE_ACCESS_DENIED) {
        snprintf(line, sizeof line, "ccore_device_access(%s) as nobody: status %d", g_long_link, (int)la.status);
        goto done;
    }
    if (whole_reason("ccore_device_access's reason", la.reason, line, sizeof line)) goto done;
    char long_msg[CCORE_SOURCE_MESSAGE_SIZE] = "";
    r = ccore_source_open_device(g_long_link, &cfg, &src, long_msg, sizeof long_msg);
    if (r != -EACCES) {
        snprintf(line, sizeof line, "opening the by-id path as nobody returned %s: %s", ccore_error_name(r), long_msg);
        ccore_source_destroy(src);
        goto done;
    }
    if (whole_reason("the open message", long_msg, line, sizeof line)) goto done;
    info("by-id path of %zu bytes: reason of %zu bytes, whole", strlen(g_long_link), strlen(la.reason));
done:
    write_all(out_fd, line);
    fflush(stdout);
    _exit(line[0] ? 1 : 0);
}

int test_denied(char *reason, size_t reason_size) {
    struct stat st0;
    if (stat(g_nodes.capture, &st0) != 0) FAILF("stat %s: %s", g_nodes.capture, strerror(errno));
    struct group *g = getgrnam("video");
    if (!g) FAILF("no 'video' group in /etc/group");
    gid_t video = g->gr_gid;
    if (chown(g_nodes.capture, 0, video) != 0 || chmod(g_nodes.capture, 0660) != 0)
        FAILF("making %s root:video 0660: %s", g_nodes.capture, strerror(errno));
    if (make_long_link(reason, reason_size)) return 1;
    int failed = 0, status = 0;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) FAILGO(out, "pipe: %s", strerror(errno));
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) FAILGO(out, "fork: %s", strerror(errno));
    if (pid == 0) {
        close(p[0]);
        denied_child(p[1]);
    }
    close(p[1]);
    char got[REASON_MAX];
    int n = read_with_timeout(p[0], got, sizeof got, 30000, 0);
    close(p[0]);
    if (wait_child(pid, 10000, &status) != 0) FAILGO(out, "the unprivileged child hung");
    if (n < 0) FAILGO(out, "the unprivileged child did not answer in 30 s");
    if (got[0]) FAILGO(out, "%s", got);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) FAILGO(out, "the unprivileged child ended with status 0x%x", status);
out:
    unlink(g_long_link);
    rmdir(LONG_LINK_DIR);
    if (chown(g_nodes.capture, st0.st_uid, st0.st_gid) != 0 || chmod(g_nodes.capture, st0.st_mode & 07777) != 0)
        info("could not restore %s's owner and mode: %s", g_nodes.capture, strerror(errno));
    return failed;
}
