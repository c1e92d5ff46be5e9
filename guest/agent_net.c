/* guest/agent_net.c: the guest's network, for the workloads that serve
 * the host (FTP): QEMU's user-mode networking, configured with ioctl()s
 * since the guest has no ip(8) and no DHCP client. Only when the host
 * sets `net 1`; a cell without port forwards has no NIC. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/util.h"
#include "guest/agent.h"

static int agent_net_ifreq_addr(int sock, unsigned long req, const char *ifname, const char *ip) {
        struct ifreq ifr;
        struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

        memset(&ifr, 0, sizeof(ifr));
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
        sin->sin_family = AF_INET;
        inet_pton(AF_INET, ip, &sin->sin_addr);
        return ioctl(sock, req, &ifr) < 0 ? -errno : 0;
}

static int agent_net_if_up(int sock, const char *ifname) {
        struct ifreq ifr;

        memset(&ifr, 0, sizeof(ifr));
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
        if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
                return -errno;
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        return ioctl(sock, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
}

/* QEMU user-mode networking: 10.0.2.15/24, gateway 10.0.2.2. The UDP packet
 * to the gateway's discard port is meant to teach slirp the guest's MAC
 * early; e1000's link comes up about 2 s after eth0 does, so it waits in the
 * queue until then. What removed the ~6 s stall of the first forwarded
 * connection is the FTP job waiting for the carrier (docs/ftp.md). */
static void agent_net_up(void) {
        _cleanup_close_ int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct rtentry rt;
        struct sockaddr_in *sin;
        int r;

        if (sock < 0)
                agent_fail("net: socket: %s", strerror(errno));
        if ((r = agent_net_if_up(sock, "lo")) < 0)
                agent_recordf("log", "net: lo up: %s", strerror(-r));
        if ((r = agent_net_ifreq_addr(sock, SIOCSIFADDR, "eth0", "10.0.2.15")) < 0 ||
            (r = agent_net_ifreq_addr(sock, SIOCSIFNETMASK, "eth0", "255.255.255.0")) < 0 ||
            (r = agent_net_if_up(sock, "eth0")) < 0)
                agent_fail("net: configure eth0: %s", strerror(-r));

        memset(&rt, 0, sizeof(rt));
        sin = (struct sockaddr_in *)&rt.rt_dst;
        sin->sin_family = AF_INET;
        sin = (struct sockaddr_in *)&rt.rt_genmask;
        sin->sin_family = AF_INET;
        sin = (struct sockaddr_in *)&rt.rt_gateway;
        sin->sin_family = AF_INET;
        inet_pton(AF_INET, "10.0.2.2", &sin->sin_addr);
        rt.rt_flags = RTF_UP | RTF_GATEWAY;
        rt.rt_dev = (char *)"eth0";
        if (ioctl(sock, SIOCADDRT, &rt) < 0 && errno != EEXIST)
                agent_fail("net: default route via 10.0.2.2: %s", strerror(errno));

        {
                struct sockaddr_in gw = { .sin_family = AF_INET, .sin_port = htons(9) };
                inet_pton(AF_INET, "10.0.2.2", &gw.sin_addr);
                if (sendto(sock, "kbench", 6, 0, (struct sockaddr *)&gw, sizeof(gw)) < 0)
                        agent_recordf("log", "net: hello to 10.0.2.2:9: %s", strerror(errno));
        }
}

void agent_net_setup(void) {
        int on;

        if (strcmp(A.set.net, "") == 0)
                return;
        if (parse_bool(A.set.net, &on) < 0)
                agent_fail("set net: '%s' is not 0 or 1", A.set.net);
        if (on)
                agent_net_up();
}
