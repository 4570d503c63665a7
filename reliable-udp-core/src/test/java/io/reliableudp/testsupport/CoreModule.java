package io.reliableudp.testsupport;

import io.reliableudp.transport.ReliableUdpNode;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The core's module descriptor as the other modules' architecture tests read it: on the class path, as
 * those modules run, nothing but an ArchUnit rule built on {@link #notExported()} keeps their code out of
 * the packages the core does not export. Shared through the core's test jar.
 */
public final class CoreModule {

    private CoreModule() {
    }

    /**
     * The packages of the core's module descriptor (read from its classes directory or jar) that it does
     * not export.
     *
     * @throws IllegalStateException when the core on the class path has no module descriptor
     */
    public static Set<String> notExported() {
        try {
            Path core = Path.of(ReliableUdpNode.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            ModuleDescriptor module = ModuleFinder.of(core).findAll().iterator().next().descriptor();
            if (module.isAutomatic()) {
                throw new IllegalStateException("the core on the class path has no module descriptor: " + core);
            }
            Set<String> packages = new HashSet<>(module.packages());
            module.exports().forEach(e -> packages.remove(e.source()));
            return packages;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
