package io.reliableudp.transport;

import java.util.Base64;

/** The body of one PEM block (RFC 7468) of the expected label, decoded; the message never echoes key text. */
final class Pem {

    private Pem() {
    }

    static byte[] decode(String text, String label) {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int b = text.indexOf(begin);
        int e = text.indexOf(end);
        if (b < 0 || e < b) {
            throw new IllegalArgumentException("expected a PEM \"" + label + "\" block");
        }
        String body = text.substring(b + begin.length(), e).replaceAll("\\s", "");
        try {
            return Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("the PEM \"" + label + "\" block is not Base64");
        }
    }
}
