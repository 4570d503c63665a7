package io.reliableudp;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.reliableudp.packet.archfixture.CoreReadingTheWallClock;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * No wall-clock reads in the core's main classes: every timer (keepalive, timeout, resend, cookie
 * age, handshake budget, link conditioner) runs on {@code System.nanoTime}, so a wall-clock jump
 * (NTP step, a VM resumed, an operator's {@code date -s}) cannot time a connection out or keep a dead
 * one alive. {@code FaultTest.wallClockJumpsOfHoursBothWaysChangeNothing} shows the behaviour under
 * libfaketime; this rule keeps it true by construction.
 *
 * <p>Banned: {@code System.currentTimeMillis}, every {@code now()} of {@code java.time}, any use of
 * {@code java.time.Clock}/{@code InstantSource}, {@code new java.util.Date()} and
 * {@code Calendar.getInstance}. Allowed only with a named reason in {@link #ALLOWED} (none today:
 * logging goes through {@code System.Logger}, whose backend stamps the records itself).
 */
@AnalyzeClasses(packages = "io.reliableudp", importOptions = ImportOption.DoNotIncludeTests.class)
class WallClockRuleTest {

    /** Classes allowed to read the wall clock, with why. Keep it empty unless a reason is written here. */
    static final Map<String, String> ALLOWED = Map.of();

    private static final Set<String> TIME_TYPES_WITH_NOW = Set.of("java.time.Instant", "java.time.LocalDateTime",
            "java.time.LocalDate", "java.time.LocalTime", "java.time.ZonedDateTime", "java.time.OffsetDateTime",
            "java.time.OffsetTime", "java.time.Year", "java.time.YearMonth", "java.time.MonthDay");

    private static final DescribedPredicate<JavaAccess<?>> WALL_CLOCK_READ =
            DescribedPredicate.describe("a wall-clock read (currentTimeMillis, java.time now(), Clock, new Date(), Calendar.getInstance)",
                    access -> {
                        String owner = access.getTargetOwner().getName();
                        String name = access.getName();
                        return (owner.equals("java.lang.System") && name.equals("currentTimeMillis"))
                                || (TIME_TYPES_WITH_NOW.contains(owner) && name.equals("now"))
                                || owner.equals("java.time.Clock") || owner.equals("java.time.InstantSource")
                                || (owner.equals("java.util.Date") && name.equals("<init>") && access.getTarget().getDescription().endsWith("()"))
                                || (owner.equals("java.util.Calendar") && name.equals("getInstance"));
                    });

    @ArchTest
    static final ArchRule THE_CORE_READS_NO_WALL_CLOCK = noClasses()
            .that().resideInAPackage("io.reliableudp..")
            .and(DescribedPredicate.describe("not allowed by name in WallClockRuleTest.ALLOWED",
                    (JavaClass c) -> !ALLOWED.containsKey(c.getName())))
            .should().accessTargetWhere(WALL_CLOCK_READ)
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.time.Clock")
            .because("timers run on System.nanoTime: a wall-clock jump must not end or keep a connection (docs/reliability.md)");

    @Test
    void theRuleReportsAWallClockRead() {
        JavaClasses fixture = new ClassFileImporter().importClasses(CoreReadingTheWallClock.class);
        var details = THE_CORE_READS_NO_WALL_CLOCK.evaluate(fixture).getFailureReport().getDetails();
        assertThat(details).anySatisfy(line -> assertThat(line).contains("System.currentTimeMillis()"));
        assertThat(details).anySatisfy(line -> assertThat(line).contains("Instant.now()"));
    }

    @Test
    void theRealScanSeesTheCore() {
        JavaClasses core = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests()).importPackages("io.reliableudp");
        assertThat(core.contain("io.reliableudp.transport.DatagramNode")).isTrue();
        assertThat(core.contain(CoreReadingTheWallClock.class)).as("fixtures are not scanned").isFalse();
    }
}
