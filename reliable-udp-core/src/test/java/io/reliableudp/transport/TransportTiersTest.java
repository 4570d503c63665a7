package io.reliableudp.transport;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.reliableudp.transport.tierfixture.LowerPart;
import io.reliableudp.transport.tierfixture.UpperPart;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The class dependencies inside {@code transport} run one way, down the tiers its package-info names:
 * node, acceptor, handle, lane, driver, port, base. Over the package's main classes, a nested (or
 * anonymous) class counted with its outer class: every class is in a tier, every dependency goes to its
 * own tier or a lower one, and no two top-level classes depend on each other through any path. One
 * arrow up is declared: the public {@link ReliableUdpNode}'s static {@code start} makes a
 * {@link DatagramNode} (an interface's factory must name its implementation). Only the node reads the
 * send mode (the {@link LaneSchedule} seam). The fixture tests show on
 * two classes outside the real scan that a cycle, and a dependency up the tiers, fail the checks.
 */
class TransportTiersTest {

    private static final String PACKAGE = "io.reliableudp.transport";

    /** The tiers, top first (the package-info describes them). */
    static final List<List<String>> TIERS = List.of(
            List.of("DatagramNode"),
            List.of("Acceptor"),
            List.of("PeerHandle"),
            List.of("IoLane", "LaneSchedule", "ImmediateLaneSchedule", "TickLaneSchedule", "DirtyPeers", "NodeEvents", "PeerTable"),
            List.of("PeerDriver", "PeerTransmitter", "PeerLock", "PeerPauses"),
            List.of("IoLoop", "WakeTimer", "UdpDatagramPort", "SocketMarking", "InMemoryNetwork", "BatchedPorts",
                    "LinuxBatchedPort", "Libc"),
            List.of("ReliableUdpNode", "Peer", "NodeListener", "NodeConfig", "NodeIdentity", "PeerIdentity", "PeerKey", "Pem",
                    "PeerState", "PeerStats", "NodeStats", "NodeCounters", "Delivery", "ConnectionFailedException",
                    "ReceiveThreadMode", "DatagramPort", "Sessions", "SourceBudget", "PeerTimers", "NodeClock", "PathBudget",
                    "ConditionerSetting", "BatchedIo", "BatchedPort"));

    /** The one declared arrow up: the public interface's factory starts its implementation. */
    static final Set<String> ALLOWED_UP = Set.of("ReliableUdpNode -> DatagramNode");

    private static JavaClasses transport() {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(PACKAGE)
                .that(com.tngtech.archunit.base.DescribedPredicate.describe("in " + PACKAGE,
                        c -> c.getPackageName().equals(PACKAGE)));
    }

    @Test
    void dependenciesRunDownTheTiers() {
        tiersRunDown(PACKAGE, TIERS, ALLOWED_UP).check(transport());
    }

    @Test
    void noTwoClassesDependOnEachOther() {
        noCycles(PACKAGE).ignoreDependency(ReliableUdpNode.class, DatagramNode.class).check(transport());
    }

    /**
     * The send mode is one seam ({@link LaneSchedule}): the node reads it once to pick the lanes'
     * schedule (and hands it to the message layer's config); no other class of the package asks.
     */
    @Test
    void onlyTheNodeReadsTheSendMode() {
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses()
                .that().resideInAPackage(PACKAGE).and().doNotHaveSimpleName("DatagramNode").and().doNotHaveSimpleName("NodeConfig")
                .should().callMethod(NodeConfig.class, "sendMode")
                .orShould().callMethod(io.reliableudp.message.MessageConfig.class, "sendMode")
                .because("IMMEDIATE and TICK differ only behind LaneSchedule, chosen once when the node starts")
                .check(transport());
    }

    @Test
    void everyClassOfThePackageIsScanned() {
        JavaClasses classes = transport();
        // a vacuous scan (a moved package, an import option gone wrong) would pass both checks
        assertThat(classes.contain(DatagramNode.class)).isTrue();
        assertThat(classes.contain(PeerLock.DeliveryFuture.class)).isTrue();
        assertThat(classes.stream().map(TransportTiersTest::topLevel).filter(n -> !n.equals("package-info")).distinct().count())
                .isEqualTo(TIERS.stream().mapToLong(List::size).sum());
        assertThat(classes.contain(TransportTiersTest.class)).as("test classes are not scanned").isFalse();
    }

    @Test
    void theCycleCheckReportsTwoClassesThatDependOnEachOther() {
        JavaClasses fixture = new ClassFileImporter().importClasses(UpperPart.class, LowerPart.class, LowerPart.CallsUp.class);
        EvaluationResult result = noCycles(UpperPart.class.getPackageName()).evaluate(fixture);
        assertThat(result.hasViolation()).isTrue();
        assertThat(String.join("\n", result.getFailureReport().getDetails())).contains("UpperPart").contains("LowerPart");
    }

    @Test
    void theTierCheckReportsADependencyUpTheTiers() {
        JavaClasses fixture = new ClassFileImporter().importClasses(UpperPart.class, LowerPart.class, LowerPart.CallsUp.class);
        EvaluationResult result = tiersRunDown(UpperPart.class.getPackageName(),
                List.of(List.of("UpperPart"), List.of("LowerPart")), Set.of()).evaluate(fixture);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails())
                .anySatisfy(line -> assertThat(line).contains("LowerPart$CallsUp").contains("UpperPart"));
        EvaluationResult unknown = tiersRunDown(UpperPart.class.getPackageName(), List.of(List.of("UpperPart")), Set.of())
                .evaluate(fixture);
        assertThat(unknown.getFailureReport().getDetails()).anySatisfy(line -> assertThat(line).contains("LowerPart is in no tier"));
    }

    /** No cycle between the top-level classes of {@code pkg} (nested classes count with their outer class). */
    static com.tngtech.archunit.library.dependencies.SliceRule noCycles(String pkg) {
        return slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                return javaClass.getPackageName().equals(pkg) ? SliceIdentifier.of(topLevel(javaClass)) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "top-level classes of " + pkg;
            }
        }).should().beFreeOfCycles();
    }

    /** Every class of {@code pkg} is in one of {@code tiers} (top first) and depends only on its own tier or lower ones. */
    static ArchRule tiersRunDown(String pkg, List<List<String>> tiers, Set<String> allowedUp) {
        Map<String, Integer> tierOf = new HashMap<>();
        for (int i = 0; i < tiers.size(); i++) {
            for (String name : tiers.get(i)) {
                tierOf.put(name, i);
            }
        }
        return classes().that().resideInAPackage(pkg).should(new ArchCondition<JavaClass>("depend only on classes of their own tier or a lower one") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String from = topLevel(c);
                if (from.equals("package-info")) {
                    return;
                }
                Integer fromTier = tierOf.get(from);
                if (fromTier == null) {
                    events.add(SimpleConditionEvent.violated(c, from + " is in no tier"));
                    return;
                }
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass().getBaseComponentType();
                    if (!target.getPackageName().equals(pkg)) {
                        continue;
                    }
                    String to = topLevel(target);
                    Integer toTier = tierOf.get(to);
                    if (to.equals(from) || allowedUp.contains(from + " -> " + to) || toTier != null && toTier >= fromTier) {
                        continue;
                    }
                    events.add(SimpleConditionEvent.violated(d, d.getDescription() + ": " + from + " (tier " + fromTier + ") -> "
                            + to + " (tier " + (toTier == null ? "none" : toTier) + ") goes up"));
                }
            }
        });
    }

    /** The simple name of {@code c}'s top-level class. */
    static String topLevel(JavaClass c) {
        String name = c.getName().substring(c.getPackageName().length() + 1);
        int nested = name.indexOf('$');
        return nested < 0 ? name : name.substring(0, nested);
    }
}
