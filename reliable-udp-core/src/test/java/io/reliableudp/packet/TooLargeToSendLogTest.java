package io.reliableudp.packet;

import static org.assertj.core.api.Assertions.assertThat;

import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A packet refused as too large to send is counted and its WARNING names the limit that refused it:
 * the size, or the fragment count (a packet under {@code maxPacketSize} can still need more fragments
 * than {@code maxFragments}; the former text named the size limit for both).
 */
class TooLargeToSendLogTest {

    private static final Logger LOG = Logger.getLogger(ReliableEndpoint.class.getName());
    private final List<String> warnings = new ArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel() == Level.WARNING) {
                warnings.add(MessageFormat.format(r.getMessage(), r.getParameters()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private boolean parentHandlers;

    @BeforeEach
    void capture() {
        parentHandlers = LOG.getUseParentHandlers();
        LOG.setUseParentHandlers(false);
        LOG.addHandler(handler);
    }

    @AfterEach
    void release() {
        LOG.removeHandler(handler);
        LOG.setUseParentHandlers(parentHandlers);
    }

    @Test
    void theWarningNamesTheLimitThatRefusedThePacket() {
        ReliableConfig config = ReliableConfig.defaults().toBuilder()
                .maxPacketSize(16384).fragmentAbove(1024).fragmentSize(1024).maxFragments(4).build();
        ReliableEndpoint endpoint = new ReliableEndpoint(config, 0.0, (s, d, o, l) -> { }, (s, d, o, l) -> true);

        endpoint.sendPacket(new byte[5000], 0, 5000);     // under maxPacketSize, 5 fragments
        endpoint.sendPacket(new byte[20000], 0, 20000);   // above maxPacketSize
        endpoint.sendPacket(new byte[4096], 0, 4096);     // 4 fragments: sent

        assertThat(endpoint.counter(PacketCounter.NUM_PACKETS_TOO_LARGE_TO_SEND)).isEqualTo(2);
        assertThat(warnings).hasSize(2);
        // formatted as the log shows them (the parameters are numbers: the locale groups their digits)
        assertThat(warnings.get(0)).contains("packet too large to send: " + n(5000) + " bytes need 5 fragments of "
                + n(1024) + ", above maxFragments 4").doesNotContain("maxPacketSize");
        assertThat(warnings.get(1)).contains("packet too large to send: " + n(20000) + " bytes, above maxPacketSize "
                + n(16384));
    }

    private static String n(int v) {
        return MessageFormat.format("{0}", v);
    }
}
