package io.reliableudp.transport;

import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Test support: the warnings one class logs while the capture is open (its {@code System.Logger},
 * backed here by java.util.logging), formatted. Close it to stop capturing.
 */
final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
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

    private LogCapture(Class<?> source) {
        this.logger = Logger.getLogger(source.getName());
        logger.addHandler(handler);
    }

    /** Starts capturing the warnings (and worse) that {@code source} logs. */
    static LogCapture warningsOf(Class<?> source) {
        return new LogCapture(source);
    }

    /** The warnings captured so far (a live list: {@link List#clear()} starts over). */
    List<String> warnings() {
        return warnings;
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }
}
