package io.reliableudp.packet;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.function.Executable;
import org.opentest4j.AssertionFailedError;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Replays a conformance vector file (JSON lines recorded from the reference C library, schema in
 * {@code shared/conformance/reliable/README.md}) against {@link ReliableEndpoint} and
 * {@link PacketHeaderCodec}. Turns a file into named cases, one per record group: the header vectors
 * of a run of {@code header} lines, each {@code sender_edge}, each {@code malformed} record, each
 * {@code scenario} with its {@code send}/{@code wire}/{@code recv}/{@code state} records. A case throws
 * {@link AssertionError} naming the file and line of the first difference.
 */
final class ConformanceReplay {

    /** A named check; {@link #run()} throws {@link AssertionError} on a difference. */
    record Case(String name, Executable executable) {
        void run() throws Throwable {
            executable.execute();
        }
    }

    private record Line(int number, JsonNode node) {
    }

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();
    private static final HexFormat HEX = HexFormat.of();
    private static final double DEFAULT_CREATION_TIME = 100.0;

    private static final String[] STAT_NAMES = {
        "rtt", "rtt_min", "rtt_max", "rtt_avg", "jitter_avg_vs_min_rtt", "jitter_max_vs_min_rtt",
        "jitter_stddev_vs_avg_rtt", "packet_loss", "sent_bandwidth_kbps", "received_bandwidth_kbps",
        "acked_bandwidth_kbps",
    };

    private ConformanceReplay() {
    }

    /** The cases of one file; a file that cannot be read or parsed gives one failing case. */
    static List<Case> cases(Path file) {
        String fileName = file.getFileName().toString();
        List<Line> lines = new ArrayList<>();
        List<String> raw;
        try {
            raw = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of(new Case(fileName + ": unreadable", () -> {
                throw new AssertionFailedError("cannot read " + file + ": " + e);
            }));
        }
        List<Case> cases = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String text = raw.get(i).strip();
            if (text.isEmpty()) {
                continue;
            }
            int number = i + 1;
            try {
                lines.add(new Line(number, MAPPER.readTree(text)));
            } catch (RuntimeException e) {
                cases.add(new Case("line " + number + ": not JSON", () -> {
                    throw new AssertionFailedError(fileName + ":" + number + ": not a JSON object: " + e.getMessage());
                }));
            }
        }
        boolean allowEmpty;
        try {
            allowEmpty = emptyPayloadMode(fileName, lines);
        } catch (AssertionError e) {
            cases.add(new Case("build mode", () -> {
                throw e;
            }));
            return cases;
        }
        int i = 0;
        while (i < lines.size()) {
            Line line = lines.get(i);
            String type = line.node.path("type").asString("");
            switch (type) {
                case "header" -> {
                    int j = i;
                    while (j < lines.size() && "header".equals(lines.get(j).node.path("type").asString(""))) {
                        j++;
                    }
                    List<Line> group = lines.subList(i, j);
                    cases.add(new Case("header vectors, lines " + group.get(0).number + "-" + group.get(group.size() - 1).number
                            + " (" + group.size() + " records)", () -> replayHeaders(fileName, group)));
                    i = j;
                }
                case "sender_edge" -> {
                    cases.add(new Case("sender_edge " + line.node.path("name").asString("?") + " (line " + line.number + ")",
                            () -> replaySenderEdge(fileName, line, allowEmpty)));
                    i++;
                }
                case "malformed" -> {
                    cases.add(new Case("malformed " + line.node.path("name").asString("?") + " (line " + line.number + ")",
                            () -> replayMalformed(fileName, line)));
                    i++;
                }
                case "scenario" -> {
                    int j = i + 1;
                    while (j < lines.size() && isScenarioRecord(lines.get(j).node.path("type").asString(""))) {
                        j++;
                    }
                    List<Line> group = lines.subList(i, j);
                    cases.add(new Case("scenario " + line.node.path("name").asString("?") + " (lines " + line.number + "-"
                            + group.get(group.size() - 1).number + ")",
                            () -> new ScenarioReplay(fileName, group, allowEmpty).run()));
                    i = j;
                }
                default -> {
                    cases.add(new Case("line " + line.number + ": unexpected record type '" + type + "'", () -> {
                        throw new AssertionFailedError(fileName + ":" + line.number + ": record type '" + type
                                + "' is not in the schema here (a send/wire/recv/state record must follow a scenario record)");
                    }));
                    i++;
                }
            }
        }
        return cases;
    }

    private static boolean isScenarioRecord(String type) {
        return type.equals("send") || type.equals("wire") || type.equals("recv") || type.equals("state");
    }

    /**
     * The reference asserts on an empty payload in its debug build and sends a header-only packet in
     * its release build. The file tells which build recorded it: a 0-byte send recorded as
     * {@code assert} is the debug build, as {@code regular} the release build.
     */
    private static boolean emptyPayloadMode(String fileName, List<Line> lines) {
        Integer debugLine = null;
        Integer releaseLine = null;
        for (Line line : lines) {
            String type = line.node.path("type").asString("");
            if ((type.equals("send") || type.equals("sender_edge")) && line.node.path("payload_len").asInt(-1) == 0) {
                String result = line.node.path("result").asString("");
                if (result.equals("assert")) {
                    debugLine = line.number;
                } else if (result.equals("regular") || result.equals("fragmented")) {
                    releaseLine = line.number;
                }
            }
        }
        if (debugLine != null && releaseLine != null) {
            throw new AssertionFailedError(fileName + ": lines " + debugLine + " and " + releaseLine
                    + " record an empty payload both as an assertion (debug build) and as sent (release build)");
        }
        return releaseLine != null;
    }

    // ---------------------------------------------------------------- headers

    private static void replayHeaders(String fileName, List<Line> group) {
        List<String> failures = new ArrayList<>();
        PacketHeaderCodec codec = new PacketHeaderCodec();
        byte[] buffer = new byte[PacketHeaderCodec.MAX_HEADER_BYTES];
        for (Line line : group) {
            JsonNode r = line.node;
            String where = fileName + ":" + line.number;
            try {
                int sequence = r.path("sequence").asInt();
                int ack = r.path("ack").asInt();
                int ackBits = parseHex32(r.path("ack_bits").asString());
                int length = PacketHeaderCodec.encode(buffer, 0, sequence, ack, ackBits);
                String hex = HEX.formatHex(buffer, 0, length);
                check(where, "encoded bytes", r.path("hex").asString(), hex);
                check(where, "encoded length", r.path("len").asInt(), length);
                check(where, "encodedLength()", length, PacketHeaderCodec.encodedLength(sequence, ack, ackBits));
                byte[] wire = HEX.parseHex(r.path("hex").asString());
                int read = codec.decode(wire, 0, wire.length);
                JsonNode d = r.path("decoded");
                check(where, "decoded header_len", d.path("header_len").asInt(wire.length), read);
                check(where, "decoded sequence", d.path("sequence").asInt(sequence), codec.sequence());
                check(where, "decoded ack", d.path("ack").asInt(ack), codec.ack());
                check(where, "decoded ack_bits", hex32(parseHex32(d.path("ack_bits").asString(r.path("ack_bits").asString()))),
                        hex32(codec.ackBits()));
                if (d.has("prefix")) {
                    check(where, "prefix", Integer.decode(d.path("prefix").asString()), wire[0] & 0xFF);
                }
                if (d.has("ack_encoding")) {
                    check(where, "ack_encoding", d.path("ack_encoding").asString(), (wire[0] & 0x20) != 0 ? "diff8" : "abs16");
                }
                if (d.has("ack_bits_bytes_present")) {
                    for (int b = 0; b < 4; b++) {
                        check(where, "ack_bits byte " + b + " present", d.path("ack_bits_bytes_present").path(b).asInt(),
                                (wire[0] >> (b + 1)) & 1);
                    }
                }
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        }
        if (!failures.isEmpty()) {
            throw new AssertionFailedError(failures.size() + " of " + group.size() + " header vectors differ; first ones:\n  "
                    + String.join("\n  ", failures.subList(0, Math.min(20, failures.size()))));
        }
    }

    // ---------------------------------------------------------------- sender edges

    private static final Pattern LINEAR_PAYLOAD = Pattern.compile("payload\\[i\\]\\s*=\\s*\\((\\d+)\\s*\\*\\s*i\\)\\s*mod\\s*256");

    private static void replaySenderEdge(String fileName, Line line, boolean allowEmpty) {
        JsonNode r = line.node;
        String where = fileName + ":" + line.number + " (" + r.path("name").asString("?") + ")";
        ReliableConfig config = r.has("config") ? parseConfig(where, configOf(r.path("config"), "A"), allowEmpty)
                : ReliableConfig.defaults().toBuilder().allowEmptyPayload(allowEmpty).build();
        int payloadLength = r.path("payload_len").asInt();
        byte[] payload;
        if (r.has("payload_hex")) {
            payload = HEX.parseHex(r.path("payload_hex").asString());
        } else {
            Matcher m = LINEAR_PAYLOAD.matcher(r.path("description").asString(""));
            if (!m.find()) {
                throw new AssertionFailedError(where + ": no payload_hex and no 'payload[i] = (k*i) mod 256' rule in the description");
            }
            int k = Integer.parseInt(m.group(1));
            payload = new byte[payloadLength];
            for (int i = 0; i < payloadLength; i++) {
                payload[i] = (byte) (k * i);
            }
        }
        check(where, "payload length", payloadLength, payload.length);
        List<byte[]> emitted = new ArrayList<>();
        ReliableEndpoint endpoint = new ReliableEndpoint(config, DEFAULT_CREATION_TIME,
                (seq, data, offset, length) -> emitted.add(java.util.Arrays.copyOfRange(data, offset, offset + length)),
                (seq, data, offset, length) -> true);
        int before = endpoint.nextPacketSequence();
        int sequence = endpoint.sendPacket(payload, 0, payload.length);
        checkSendResult(where, r.path("result").asString(), before, sequence, emitted);
        JsonNode wires = r.path("wires");
        check(where, "number of datagrams", wires.size(), emitted.size());
        for (int i = 0; i < wires.size(); i++) {
            check(where, "datagram " + i + " length", wires.path(i).path("len").asInt(), emitted.get(i).length);
            check(where, "datagram " + i + " bytes", wires.path(i).path("hex").asString(), HEX.formatHex(emitted.get(i)));
        }
        if (r.has("next_sequence_after")) {
            check(where, "next_sequence_after", r.path("next_sequence_after").asInt(), endpoint.nextPacketSequence());
        }
    }

    private static void checkSendResult(String where, String result, int sequenceBefore, int returned, List<byte[]> emitted) {
        switch (result) {
            case "regular" -> {
                check(where, "returned sequence", sequenceBefore, returned);
                check(where, "datagrams of a regular send", 1, emitted.size());
                check(where, "regular packet prefix bit 0", 0, emitted.get(0)[0] & 1);
            }
            case "fragmented" -> {
                check(where, "returned sequence", sequenceBefore, returned);
                if (emitted.isEmpty()) {
                    throw new AssertionFailedError(where + ": a fragmented send emitted no datagram");
                }
                for (byte[] fragment : emitted) {
                    check(where, "fragment prefix", 1, fragment[0] & 0xFF);
                }
            }
            case "too_large_to_send", "assert" -> {
                check(where, "returned sequence of a refused send (" + result + ")", -1, returned);
                check(where, "datagrams of a refused send (" + result + ")", 0, emitted.size());
            }
            default -> throw new AssertionFailedError(where + ": unknown send result '" + result + "'");
        }
    }

    // ---------------------------------------------------------------- malformed

    private static final Pattern CREATION_TIME = Pattern.compile("at time ([0-9]+(?:\\.[0-9]+)?)");

    private static void replayMalformed(String fileName, Line line) {
        JsonNode r = line.node;
        String name = r.path("name").asString("?");
        String where = fileName + ":" + line.number + " (" + name + ")";
        String receiverName = r.path("receiver").asString("B");
        ReliableConfig config = parseConfig(where + " config." + receiverName, configOf(r.path("config"), receiverName), false);
        double time = DEFAULT_CREATION_TIME;
        if (r.has("time")) {
            time = r.path("time").decimalValue().doubleValue();
        } else {
            Matcher m = CREATION_TIME.matcher(r.path("initial_state").asString(""));
            if (m.find()) {
                time = Double.parseDouble(m.group(1));
            }
        }
        Endpoint receiver = new Endpoint(receiverName, config, time, (seq, data, offset, length) -> {
            throw new AssertionFailedError(where + ": the receiver sent a datagram");
        });
        JsonNode items = r.path("items");
        for (int i = 0; i < items.size(); i++) {
            JsonNode item = items.path(i);
            byte[] datagram = HEX.parseHex(item.path("hex").asString(""));
            String itemWhere = where + " item " + i + " (" + item.path("role").asString("?") + ")";
            check(itemWhere, "datagram length", item.path("len").asInt(datagram.length), datagram.length);
            receiver.receiveAndCheck(itemWhere, datagram, item);
        }
        JsonNode after = r.path(receiverName + "_after");
        if (after.isMissingNode()) {
            throw new AssertionFailedError(where + ": no " + receiverName + "_after record");
        }
        receiver.checkState(where + " " + receiverName + "_after", after);
    }

    // ---------------------------------------------------------------- scenarios

    private static final Pattern SCENARIO_PAYLOAD = Pattern.compile(
            "payload\\[i\\]\\s*=\\s*\\(\\(sequence mod (\\d+)\\)\\s*\\+\\s*(\\d+)\\*i\\s*\\+\\s*\\(from=='B' \\? (\\d+) : 0\\)\\)\\s*mod 256");
    private static final Pattern SCENARIO_PAYLOAD_LENGTH = Pattern.compile(
            "payload_len\\s*=\\s*(\\d+)\\s*\\+\\s*\\(sequence\\s*\\*\\s*(\\d+)\\s*mod\\s*(\\d+)\\)");
    private static final String WARMUP_TRAFFIC = "each step: A sends 1 packet, then B sends 1 packet";

    /** One scenario: endpoints A and B, a shared wire-id numbering, the step model of the README. */
    private static final class ScenarioReplay {
        private final String fileName;
        private final List<Line> group;
        private final JsonNode scenario;
        private final Map<Integer, byte[]> wires = new HashMap<>();
        private final Map<Integer, String> wireSender = new HashMap<>();
        private final List<Integer> emitted = new ArrayList<>();
        private final Endpoint a;
        private final Endpoint b;
        private final double t0;
        private final double dt;
        private int nextWireId;
        private int step;

        ScenarioReplay(String fileName, List<Line> group, boolean allowEmpty) {
            this.fileName = fileName;
            this.group = group;
            this.scenario = group.get(0).node;
            String where = fileName + ":" + group.get(0).number;
            JsonNode time = scenario.path("time");
            if (!time.has("t0") || !time.has("dt")) {
                throw new AssertionFailedError(where + ": scenario has no time.t0/time.dt");
            }
            this.t0 = time.path("t0").decimalValue().doubleValue();
            this.dt = time.path("dt").decimalValue().doubleValue();
            this.a = new Endpoint("A", parseConfig(where + " config.A", configOf(scenario.path("config"), "A"), allowEmpty), t0,
                    transmitterOf("A"));
            this.b = new Endpoint("B", parseConfig(where + " config.B", configOf(scenario.path("config"), "B"), allowEmpty), t0,
                    transmitterOf("B"));
        }

        private PacketTransmitter transmitterOf(String name) {
            return (seq, data, offset, length) -> {
                int id = nextWireId++;
                wires.put(id, java.util.Arrays.copyOfRange(data, offset, offset + length));
                wireSender.put(id, name);
                emitted.add(id);
            };
        }

        private Endpoint endpoint(String where, String name) {
            return switch (name) {
                case "A" -> a;
                case "B" -> b;
                default -> throw new AssertionFailedError(where + ": unknown endpoint '" + name + "'");
            };
        }

        private double timeAt(int k) {
            return t0 + k * dt;
        }

        void run() {
            int first = scenario.path("first_logged_step").asInt(0);
            step = -1;
            if (first > 0) {
                warmUp(first);
                step = first - 1;
            }
            for (Line line : group.subList(1, group.size())) {
                JsonNode r = line.node;
                String type = r.path("type").asString();
                int recordStep = r.path("step").asInt(Integer.MIN_VALUE);
                String where = fileName + ":" + line.number + " (" + type + " step " + recordStep + ")";
                if (recordStep == Integer.MIN_VALUE) {
                    throw new AssertionFailedError(where + ": record has no step");
                }
                if (recordStep < step) {
                    throw new AssertionFailedError(where + ": steps go backwards (at step " + step + ")");
                }
                if (recordStep > step) {
                    a.endpoint.clearAcks();
                    b.endpoint.clearAcks();
                    for (int k = step + 1; k <= recordStep; k++) {
                        a.endpoint.update(timeAt(k));
                        b.endpoint.update(timeAt(k));
                    }
                    step = recordStep;
                }
                if (r.has("time")) {
                    check(where, "time of step " + step + " (t0 + step*dt)", r.path("time").decimalValue().doubleValue(), timeAt(step));
                }
                switch (type) {
                    case "send" -> replaySend(where, r);
                    case "wire" -> replayWire(where, r);
                    case "recv" -> replayRecv(where, r);
                    case "state" -> {
                        a.checkState(where + " A", r.path("A"));
                        b.checkState(where + " B", r.path("B"));
                    }
                    default -> throw new AssertionFailedError(where + ": unexpected record type " + type);
                }
            }
        }

        private void replaySend(String where, JsonNode r) {
            Endpoint from = endpoint(where, r.path("from").asString());
            byte[] payload = HEX.parseHex(r.path("payload_hex").asString(""));
            check(where, "payload_len", r.path("payload_len").asInt(payload.length), payload.length);
            int before = from.endpoint.nextPacketSequence();
            if (r.hasNonNull("sequence")) {
                check(where, "sequence before the send", r.path("sequence").asInt(), before);
            }
            emitted.clear();
            int returned = from.endpoint.sendPacket(payload, 0, payload.length);
            List<byte[]> datagrams = new ArrayList<>();
            for (int id : emitted) {
                datagrams.add(wires.get(id));
            }
            String result = r.path("result").asString();
            checkSendResult(where, result, before, returned, datagrams);
            if (result.equals("assert") || result.equals("too_large_to_send")) {
                check(where, "next sequence after a refused send", before, from.endpoint.nextPacketSequence());
            }
            List<Integer> expectedIds = new ArrayList<>();
            r.path("wire_ids").forEach(n -> expectedIds.add(n.asInt()));
            check(where, "wire ids (in emission order)", expectedIds, List.copyOf(emitted));
        }

        private void replayWire(String where, JsonNode r) {
            int id = r.path("wire_id").asInt();
            byte[] bytes = wires.get(id);
            if (bytes == null) {
                throw new AssertionFailedError(where + ": wire " + id + " was not emitted by our endpoints (we emitted "
                        + nextWireId + " datagrams)");
            }
            check(where, "wire " + id + " sender", r.path("from").asString(), wireSender.get(id));
            check(where, "wire " + id + " length", r.path("len").asInt(), bytes.length);
            check(where, "wire " + id + " bytes", r.path("hex").asString(), HEX.formatHex(bytes));
        }

        private void replayRecv(String where, JsonNode r) {
            int id = r.path("wire_id").asInt();
            byte[] bytes = wires.get(id);
            if (bytes == null) {
                throw new AssertionFailedError(where + ": recv of wire " + id + ", which our endpoints did not emit");
            }
            if (r.has("from")) {
                check(where, "sender of wire " + id, r.path("from").asString(), wireSender.get(id));
            }
            if (r.has("len")) {
                check(where, "length of wire " + id, r.path("len").asInt(), bytes.length);
            }
            endpoint(where, r.path("to").asString()).receiveAndCheck(where + " wire " + id, bytes, r);
        }

        /**
         * The unlogged steps 0..first-1, derived from the scenario's own description of its model;
         * fails when the model is not one we can derive.
         */
        private void warmUp(int first) {
            String where = fileName + ":" + group.get(0).number + " (warm-up of steps 0.." + (first - 1) + ")";
            String traffic = scenario.path("traffic").asString("").strip();
            String network = scenario.path("network").asString("").strip();
            String process = scenario.path("process_packet_function").asString("").strip();
            if (!traffic.equals(WARMUP_TRAFFIC)) {
                throw cannotDerive(where, "traffic is '" + traffic + "', expected '" + WARMUP_TRAFFIC + "'");
            }
            if (!network.toLowerCase(Locale.ROOT).startsWith("lossless") || !network.contains("step+1")) {
                throw cannotDerive(where, "network is '" + network + "', expected a lossless network delivering at step+1");
            }
            if (!process.equals("always returns 1")) {
                throw cannotDerive(where, "process_packet_function is '" + process + "', expected 'always returns 1'");
            }
            Matcher payloadRule = SCENARIO_PAYLOAD.matcher(scenario.path("payload").asString(""));
            if (!payloadRule.find()) {
                throw cannotDerive(where, "payload rule '" + scenario.path("payload").asString("") + "' not understood");
            }
            int sequenceModulus = Integer.parseInt(payloadRule.group(1));
            int perByte = Integer.parseInt(payloadRule.group(2));
            int bOffset = Integer.parseInt(payloadRule.group(3));
            Matcher lengthRule = SCENARIO_PAYLOAD_LENGTH.matcher(scenario.path("description").asString(""));
            if (!lengthRule.find()) {
                throw cannotDerive(where, "no 'payload_len = c + (sequence*k mod m)' in the description");
            }
            int lengthBase = Integer.parseInt(lengthRule.group(1));
            int lengthFactor = Integer.parseInt(lengthRule.group(2));
            int lengthModulus = Integer.parseInt(lengthRule.group(3));

            a.warmingUp = true;
            b.warmingUp = true;
            byte[] payload = new byte[a.endpoint.config().maxPacketSize() + b.endpoint.config().maxPacketSize()];
            Deque<int[]> inFlight = new ArrayDeque<>(); // {wireId, deliverStep, receiver 0=A 1=B}
            for (int k = 0; k < first; k++) {
                double t = timeAt(k);
                a.endpoint.update(t);
                b.endpoint.update(t);
                while (!inFlight.isEmpty() && inFlight.peekFirst()[1] == k) {
                    int[] w = inFlight.pollFirst();
                    byte[] bytes = wires.get(w[0]);
                    ReliableEndpoint to = w[2] == 0 ? a.endpoint : b.endpoint;
                    ReceiveOutcome outcome = to.receivePacket(bytes, 0, bytes.length);
                    if (!outcome.isDelivered() && outcome != ReceiveOutcome.FRAGMENT_STORED_REASSEMBLY_INCOMPLETE) {
                        throw new AssertionFailedError(where + ": step " + k + ": wire " + w[0] + " was " + outcome
                                + " in a lossless warm-up");
                    }
                }
                for (int side = 0; side < 2; side++) {
                    ReliableEndpoint from = side == 0 ? a.endpoint : b.endpoint;
                    int sequence = from.nextPacketSequence();
                    int length = lengthBase + (int) (((long) sequence * lengthFactor) % lengthModulus);
                    for (int i = 0; i < length; i++) {
                        payload[i] = (byte) ((sequence % sequenceModulus) + perByte * i + (side == 1 ? bOffset : 0));
                    }
                    emitted.clear();
                    if (from.sendPacket(payload, 0, length) < 0) {
                        throw new AssertionFailedError(where + ": step " + k + ": endpoint " + (side == 0 ? "A" : "B")
                                + " refused a " + length + "-byte payload");
                    }
                    for (int id : emitted) {
                        inFlight.addLast(new int[] {id, k + 1, 1 - side});
                    }
                }
                a.endpoint.clearAcks();
                b.endpoint.clearAcks();
            }
            a.warmingUp = false;
            b.warmingUp = false;
        }

        private static AssertionError cannotDerive(String where, String why) {
            return new AssertionFailedError(where + ": cannot derive the unlogged warm-up: " + why);
        }
    }

    // ---------------------------------------------------------------- endpoint under test

    /** An endpoint with a processor that records every call and answers what the vector recorded. */
    private static final class Endpoint {
        final String name;
        final ReliableEndpoint endpoint;
        final Deque<Boolean> answers = new ArrayDeque<>();
        final List<String> processed = new ArrayList<>();
        boolean warmingUp;

        Endpoint(String name, ReliableConfig config, double time, PacketTransmitter transmitter) {
            this.name = name;
            this.endpoint = new ReliableEndpoint(config, time, transmitter, this::process);
        }

        private boolean process(int sequence, byte[] data, int offset, int length) {
            if (warmingUp) {
                return true;
            }
            Boolean answer = answers.pollFirst();
            processed.add(sequence + ":" + length + ":" + HEX.formatHex(data, offset, offset + length) + ":"
                    + (answer == null ? "unexpected" : answer));
            return answer == null || answer;
        }

        int sendPacket(byte[] payload, int length) {
            return endpoint.sendPacket(payload, 0, length);
        }

        /** Feeds one datagram and checks outcome, counters delta, processed payloads and new acks. */
        void receiveAndCheck(String where, byte[] datagram, JsonNode record) {
            List<String> expectedProcessed = new ArrayList<>();
            answers.clear();
            processed.clear();
            for (JsonNode p : record.path("processed")) {
                boolean accepted = p.path("accepted").asBoolean(true);
                answers.addLast(accepted);
                expectedProcessed.add(p.path("sequence").asInt() + ":" + p.path("payload_len").asInt() + ":"
                        + p.path("payload_hex").asString("") + ":" + accepted);
            }
            long[] before = referenceCounters();
            int acksBefore = endpoint.ackCount();
            ReceiveOutcome outcome = endpoint.receivePacket(datagram, 0, datagram.length);

            String expectedOutcome = record.path("outcome").asString();
            String actualOutcome = outcome.referenceName();
            if (expectedOutcome.equals("assert") && datagram.length == 0) {
                // the reference asserts packet_bytes > 0; we drop the empty datagram
                expectedOutcome = ReceiveOutcome.EMPTY_DATAGRAM.referenceName();
            }
            check(where, "outcome", expectedOutcome, actualOutcome);

            long[] after = referenceCounters();
            JsonNode delta = record.path("counters_delta");
            for (String key : delta.propertyNames()) {
                if (counterByName(key) == null) {
                    throw new AssertionFailedError(where + ": unknown counter '" + key + "' in counters_delta");
                }
            }
            for (PacketCounter c : PacketCounter.values()) {
                if (c.isReference()) {
                    check(where, "counters_delta." + c.referenceName(), delta.path(c.referenceName()).asLong(0),
                            after[c.ordinal()] - before[c.ordinal()]);
                }
            }
            check(where, "processed (sequence:length:payload:accepted)", expectedProcessed, List.copyOf(processed));
            List<Integer> expectedAcks = new ArrayList<>();
            record.path("new_acks").forEach(n -> expectedAcks.add(n.asInt()));
            List<Integer> newAcks = new ArrayList<>();
            for (int i = acksBefore; i < endpoint.ackCount(); i++) {
                newAcks.add(endpoint.ack(i));
            }
            check(where, "new_acks", expectedAcks, newAcks);
        }

        private long[] referenceCounters() {
            long[] values = new long[PacketCounter.REFERENCE_COUNT];
            for (PacketCounter c : PacketCounter.values()) {
                if (c.isReference()) {
                    values[c.ordinal()] = endpoint.counter(c);
                }
            }
            return values;
        }

        /** Checks next_sequence, acks, every counter and every statistic (float32, exactly). */
        void checkState(String where, JsonNode state) {
            if (state.isMissingNode() || state.isNull()) {
                throw new AssertionFailedError(where + ": no state for endpoint " + name);
            }
            check(where, "next_sequence", state.path("next_sequence").asInt(), endpoint.nextPacketSequence());
            List<Integer> expectedAcks = new ArrayList<>();
            state.path("acks").forEach(n -> expectedAcks.add(n.asInt()));
            List<Integer> acks = new ArrayList<>();
            for (int i = 0; i < endpoint.ackCount(); i++) {
                acks.add(endpoint.ack(i));
            }
            check(where, "acks", expectedAcks, acks);
            JsonNode counters = state.path("counters");
            for (String key : counters.propertyNames()) {
                if (counterByName(key) == null) {
                    throw new AssertionFailedError(where + ": unknown counter '" + key + "'");
                }
            }
            for (PacketCounter c : PacketCounter.values()) {
                if (!c.isReference()) {
                    continue;
                }
                if (!counters.has(c.referenceName())) {
                    throw new AssertionFailedError(where + ": counter " + c.referenceName() + " missing from the record");
                }
                check(where, "counters." + c.referenceName(), counters.path(c.referenceName()).asLong(), endpoint.counter(c));
            }
            JsonNode stats = state.path("stats");
            for (String key : stats.propertyNames()) {
                if (!List.of(STAT_NAMES).contains(key)) {
                    throw new AssertionFailedError(where + ": unknown statistic '" + key + "'");
                }
            }
            for (String stat : STAT_NAMES) {
                if (!stats.has(stat)) {
                    throw new AssertionFailedError(where + ": statistic " + stat + " missing from the record");
                }
                float expected = toFloat(stats.path(stat));
                float actual = stat(stat);
                if (Float.compare(expected, actual) != 0) {
                    throw new AssertionFailedError(where + ": stats." + stat + " differs (float32): expected " + expected + " ("
                            + hex32(Float.floatToRawIntBits(expected)) + ") but was " + actual + " ("
                            + hex32(Float.floatToRawIntBits(actual)) + ")", expected, actual);
                }
            }
        }

        private float stat(String stat) {
            ReliableEndpoint e = endpoint;
            return switch (stat) {
                case "rtt" -> e.rtt();
                case "rtt_min" -> e.rttMin();
                case "rtt_max" -> e.rttMax();
                case "rtt_avg" -> e.rttAvg();
                case "jitter_avg_vs_min_rtt" -> e.jitterAvgVsMinRtt();
                case "jitter_max_vs_min_rtt" -> e.jitterMaxVsMinRtt();
                case "jitter_stddev_vs_avg_rtt" -> e.jitterStddevVsAvgRtt();
                case "packet_loss" -> e.packetLoss();
                case "sent_bandwidth_kbps" -> e.sentBandwidthKbps();
                case "received_bandwidth_kbps" -> e.receivedBandwidthKbps();
                case "acked_bandwidth_kbps" -> e.ackedBandwidthKbps();
                default -> throw new IllegalArgumentException(stat);
            };
        }
    }

    // ---------------------------------------------------------------- helpers

    private static PacketCounter counterByName(String referenceName) {
        for (PacketCounter c : PacketCounter.values()) {
            if (c.isReference() && c.referenceName().equals(referenceName)) {
                return c;
            }
        }
        return null;
    }

    private static JsonNode configOf(JsonNode config, String endpoint) {
        if (config.has(endpoint)) {
            return config.path(endpoint);
        }
        return config;
    }

    /** A recorded {@code reliable_config_t} (snake_case keys) as our configuration. */
    static ReliableConfig parseConfig(String where, JsonNode c, boolean allowEmpty) {
        ReliableConfig.Builder b = ReliableConfig.builder().allowEmptyPayload(allowEmpty);
        if (c.isMissingNode() || c.isNull()) {
            return b.build();
        }
        for (Map.Entry<String, JsonNode> e : c.properties()) {
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "name" -> b.name(v.asString());
                case "max_packet_size" -> b.maxPacketSize(v.asInt());
                case "fragment_above" -> b.fragmentAbove(v.asInt());
                case "max_fragments" -> b.maxFragments(v.asInt());
                case "fragment_size" -> b.fragmentSize(v.asInt());
                case "ack_buffer_size" -> b.ackBufferSize(v.asInt());
                case "sent_packets_buffer_size" -> b.sentPacketsBufferSize(v.asInt());
                case "received_packets_buffer_size" -> b.receivedPacketsBufferSize(v.asInt());
                case "fragment_reassembly_buffer_size" -> b.fragmentReassemblyBufferSize(v.asInt());
                case "rtt_smoothing_factor" -> b.rttSmoothingFactor(toFloat(v));
                case "rtt_history_size" -> b.rttHistorySize(v.asInt());
                case "packet_loss_smoothing_factor" -> b.packetLossSmoothingFactor(toFloat(v));
                case "bandwidth_smoothing_factor" -> b.bandwidthSmoothingFactor(toFloat(v));
                case "packet_header_size" -> b.packetHeaderSize(v.asInt());
                default -> throw new AssertionFailedError(where + ": unknown config field '" + e.getKey() + "'");
            }
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new AssertionFailedError(where + ": configuration refused: " + e.getMessage(), e);
        }
    }

    /** The float32 a recorded decimal denotes (parsed from its exact decimal, no double rounding). */
    private static float toFloat(JsonNode n) {
        BigDecimal d = n.decimalValue();
        return Float.parseFloat(d.toString());
    }

    private static int parseHex32(String text) {
        String t = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
        return (int) Long.parseLong(t, 16);
    }

    private static String hex32(int value) {
        return String.format("0x%08x", value);
    }

    private static void check(String where, String what, Object expected, Object actual) {
        if (!expected.equals(actual)) {
            throw new AssertionFailedError(where + ": " + what + " differs: expected <" + abbreviate(expected) + "> but was <"
                    + abbreviate(actual) + ">", expected, actual);
        }
    }

    private static String abbreviate(Object value) {
        String s = String.valueOf(value);
        return s.length() <= 400 ? s : s.substring(0, 400) + "... (" + s.length() + " chars)";
    }
}
