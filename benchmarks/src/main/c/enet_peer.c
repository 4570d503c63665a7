/*
 * ENet peer of the reliable-udp "loss" benchmark: the sender or the receiver of a timestamped event stream over
 * one ENet reliable channel, with a flush after every send. It follows the peer contract of LossPeer.java:
 *
 *   enet-peer receive PORT EVENTS SIZE RECORD_FILE LIFETIME_S WARM_CAP     (PORT 0: any free one, printed after READY)
 *   enet-peer send    HOST PORT EVENTS RATE_HZ SIZE LIFETIME_S SETTLE_S WARM_CAP
 *
 * An event is SIZE bytes: sequence number (bytes 0-7) and CLOCK_MONOTONIC send time in nanoseconds (bytes 8-15),
 * big-endian, then zeros. The sender connects at once, sends at RATE_HZ for SETTLE_S seconds (SETTLING), says
 * READY and keeps the cadence until GO; the next event, sequence number F, is the first measured one
 * (CONNECTED first=F), the receiver learns F from a stdin line FIRST F. Other stdout lines: SENT n refused=r,
 * DONE delivered=N duplicates=D warm=W, STATS; STOP (or end of stdin) finishes. ENet's defaults otherwise
 * (its RTT-based retransmission timer, packet throttle, 1 channel, no bandwidth limits).
 *
 * Built by the benchmark itself: gcc -O2 -o target/native/enet-peer enet_peer.c -lenet
 */
#include <enet/enet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t now_nanos(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void put64(uint8_t *p, int64_t v) {
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t) (v & 0xff);
        v >>= 8;
    }
}

static int64_t get64(const uint8_t *p) {
    int64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v = (v << 8) | p[i];
    }
    return v;
}

/* The next complete stdin line without blocking: 1 = a line in buf, 0 = nothing yet, -1 = end of stdin. */
static int stdin_line(char *buf, size_t size) {
    static char pending[256];
    static size_t used = 0;
    static int ended = 0;
    if (ended) {
        return -1;
    }
    struct pollfd p = {.fd = 0, .events = POLLIN};
    while (poll(&p, 1, 0) > 0) {
        if (used == sizeof pending) {
            used = 0; /* an absurd line: drop it */
        }
        ssize_t n = read(0, pending + used, sizeof pending - used);
        if (n <= 0) {
            ended = 1;
            return -1;
        }
        used += (size_t) n;
        char *nl = memchr(pending, '\n', used);
        if (nl != NULL) {
            size_t len = (size_t) (nl - pending);
            size_t copy = len < size - 1 ? len : size - 1;
            memcpy(buf, pending, copy);
            buf[copy] = 0;
            memmove(pending, nl + 1, used - len - 1);
            used -= len + 1;
            return 1;
        }
    }
    return 0;
}

/* The first measured event as a stdin line FIRST F said (-1 before). */
static long long first_measured = -1;

/* 1 when stdin said STOP or ended; notes FIRST F. */
static int told_to_stop(void) {
    char line[64];
    int r;
    while ((r = stdin_line(line, sizeof line)) == 1) {
        if (strcmp(line, "STOP") == 0) {
            return 1;
        }
        if (strncmp(line, "FIRST ", 6) == 0) {
            first_measured = atoll(line + 6);
        }
    }
    return r < 0;
}

static int receive(int port, long events, int size, const char *record_file, int64_t deadline, long warm_cap) {
    ENetAddress address = {.host = ENET_HOST_ANY, .port = (enet_uint16) port};
    ENetHost *host = enet_host_create(&address, 4, 1, 0, 0);
    if (host == NULL) {
        printf("ERROR cannot bind port %d\n", port);
        return 1;
    }
    long capacity = events + warm_cap;
    int64_t *latency = malloc(sizeof(int64_t) * (size_t) capacity);
    for (long i = 0; i < capacity; i++) {
        latency[i] = -1;
    }
    long delivered = 0, duplicates = 0, foreign = 0; /* delivered: first deliveries of every event */
    printf("READY port=%u\n", (unsigned) host->address.port);
    fflush(stdout);
    int stopped = 0;
    while ((first_measured < 0 || delivered < first_measured + events) && now_nanos() < deadline && !(stopped = told_to_stop())) {
        ENetEvent event;
        int r = enet_host_service(host, &event, 5);
        while (r > 0) {
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                int64_t now = now_nanos();
                if (event.packet->dataLength == (size_t) size) {
                    int64_t seq = get64(event.packet->data);
                    if (seq < 0 || seq >= capacity) {
                        foreign++;
                    } else if (latency[seq] >= 0) {
                        duplicates += first_measured >= 0 && seq >= first_measured;
                    } else {
                        latency[seq] = now - get64(event.packet->data + 8);
                        delivered++;
                    }
                } else {
                    foreign++;
                }
                enet_packet_destroy(event.packet);
            }
            r = enet_host_check_events(host, &event);
        }
    }
    /* let the last acknowledgements leave */
    enet_host_flush(host);
    FILE *f = fopen(record_file, "w");
    if (f == NULL) {
        printf("ERROR cannot write %s: %s\n", record_file, strerror(errno));
        return 1;
    }
    long measured = 0, warm = 0;
    for (long i = 0; i < capacity; i++) {
        if (latency[i] < 0) {
            continue;
        }
        if (first_measured >= 0 && i >= first_measured && i < first_measured + events) {
            fprintf(f, "%lld %lld\n", (long long) (i - first_measured), (long long) latency[i]);
            measured++;
        } else if (first_measured < 0 || i < first_measured) {
            warm++;
        }
    }
    fclose(f);
    printf("DONE delivered=%ld duplicates=%ld warm=%ld foreign=%ld\n", measured, duplicates, warm, foreign);
    fflush(stdout);
    /* the host stays up (answering the sender) until the harness has read the traffic counters */
    for (int64_t until = now_nanos() + 30000000000LL; !stopped && now_nanos() < until && !told_to_stop();) {
        ENetEvent idle;
        if (enet_host_service(host, &idle, 5) > 0 && idle.type == ENET_EVENT_TYPE_RECEIVE) {
            enet_packet_destroy(idle.packet);
        }
    }
    free(latency);
    enet_host_destroy(host);
    return 0;
}

/* Services the host until the monotonic time `until` (acks, resends). */
static void service_until(ENetHost *host, int64_t until) {
    for (int64_t left; (left = until - now_nanos()) > 0;) {
        ENetEvent event;
        if (left >= 1000000) {
            if (enet_host_service(host, &event, (enet_uint32) (left / 1000000)) > 0 && event.type == ENET_EVENT_TYPE_RECEIVE) {
                enet_packet_destroy(event.packet);
            }
        } else {
            struct timespec ts = {.tv_sec = 0, .tv_nsec = (long) left};
            nanosleep(&ts, NULL);
        }
    }
}

static int send_stream(const char *hostname, int port, long events, double rate, int size, int64_t deadline,
                       double settle, long warm_cap) {
    ENetHost *host = enet_host_create(NULL, 1, 1, 0, 0);
    if (host == NULL) {
        printf("ERROR cannot create the ENet host\n");
        return 1;
    }
    ENetAddress address;
    enet_address_set_host(&address, hostname);
    address.port = (enet_uint16) port;
    ENetPeer *peer = enet_host_connect(host, &address, 1, 0);
    ENetEvent event;
    int connected = 0;
    while (!connected && now_nanos() < deadline) {
        if (enet_host_service(host, &event, 10) > 0 && event.type == ENET_EVENT_TYPE_CONNECT) {
            connected = 1;
        }
    }
    if (!connected) {
        printf("ERROR could not connect\n");
        return 1;
    }
    printf("SETTLING\n");
    fflush(stdout);
    uint8_t *buf = calloc(1, (size_t) size);
    int64_t interval = (int64_t) (1e9 / rate);
    long settle_ticks = (long) (settle * rate);
    settle_ticks += settle_ticks < settle * rate;
    int64_t start = now_nanos();
    long seq = 0, first = -1, sent = 0, refused = 0;
    int ready = 0;
    char line[64];
    /* one loop from the settle into the measurement: the same cadence and calls */
    for (long k = 0; now_nanos() < deadline; k++) {
        service_until(host, start + k * interval);
        if (first >= 0) {
            if (sent == events) {
                break;
            }
        } else if (k >= settle_ticks) {
            if (!ready) {
                printf("READY\n");
                fflush(stdout);
                ready = 1;
            } else if (stdin_line(line, sizeof line) == 1 && strcmp(line, "GO") == 0) {
                first = seq;
            }
        }
        if (first < 0 && seq >= warm_cap) {
            printf("ERROR no GO within %ld events\n", warm_cap);
            return 1;
        }
        put64(buf, seq++);
        put64(buf + 8, now_nanos());
        ENetPacket *packet = enet_packet_create(buf, (size_t) size, ENET_PACKET_FLAG_RELIABLE);
        int failed = enet_peer_send(peer, 0, packet) != 0;
        if (failed) {
            enet_packet_destroy(packet);
        }
        enet_host_flush(host);
        if (first >= 0) {
            refused += failed;
            if (sent++ == 0) {
                printf("CONNECTED first=%ld\n", first);
                fflush(stdout);
            }
        }
    }
    printf("SENT %ld refused=%ld\n", sent, refused);
    fflush(stdout);
    while (now_nanos() < deadline && !told_to_stop()) {
        service_until(host, now_nanos() + 10000000LL);
    }
    printf("STATS bytes=%u datagrams=%u\n", host->totalSentData, host->totalSentPackets);
    fflush(stdout);
    enet_peer_disconnect(peer, 0);
    service_until(host, now_nanos() + 100000000LL);
    free(buf);
    enet_host_destroy(host);
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (enet_initialize() != 0) {
        printf("ERROR enet_initialize failed\n");
        return 1;
    }
    int status;
    if (argc == 8 && strcmp(argv[1], "receive") == 0) {
        int64_t deadline = now_nanos() + (int64_t) (atof(argv[6]) * 1e9);
        status = receive(atoi(argv[2]), atol(argv[3]), atoi(argv[4]), argv[5], deadline, atol(argv[7]));
    } else if (argc == 10 && strcmp(argv[1], "send") == 0) {
        int64_t deadline = now_nanos() + (int64_t) (atof(argv[7]) * 1e9);
        int size = atoi(argv[6]);
        if (size < 16) {
            printf("ERROR SIZE must be >= 16\n");
            return 2;
        }
        status = send_stream(argv[2], atoi(argv[3]), atol(argv[4]), atof(argv[5]), size, deadline, atof(argv[8]), atol(argv[9]));
    } else {
        fprintf(stderr, "usage: %s receive PORT EVENTS SIZE RECORD_FILE LIFETIME_S WARM_CAP\n"
                        "       %s send HOST PORT EVENTS RATE_HZ SIZE LIFETIME_S SETTLE_S WARM_CAP\n", argv[0], argv[0]);
        return 2;
    }
    enet_deinitialize();
    return status;
}
