package io.reliableudp.message;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The message layer's send side as ArchUnit rules over its main classes: the send mode is read in one
 * place ({@link SendSchedule#of}, when the endpoint is built), and the parts of the send side call one
 * way only: the schedules ({@link ImmediateSchedule}, {@link TickSchedule}) decide when and call the
 * {@link SendRound}, which calls the {@link PacketComposer}, which fills packets and calls neither back;
 * {@link OwedAcks} and {@link ResendTimer} are read by them and call none of them.
 */
@AnalyzeClasses(packages = "io.reliableudp.message", importOptions = ImportOption.DoNotIncludeTests.class)
class SendSideStructureTest {

    private static final String PKG = "io\\.reliableudp\\.message\\.";
    private static final String SCHEDULES = PKG + "(SendSchedule|ImmediateSchedule|TickSchedule)(\\$.*)?";
    private static final String ROUND = PKG + "SendRound(\\$.*)?";
    private static final String COMPOSER = PKG + "PacketComposer(\\$.*)?";
    private static final String LEAVES = PKG + "(OwedAcks|ResendTimer)(\\$.*)?";
    private static final String ENDPOINT = PKG + "MessageEndpoint(\\$.*)?";

    @ArchTest
    static final ArchRule THE_SEND_MODE_IS_READ_ONCE = noClasses()
            .that().haveNameNotMatching(PKG + "(SendSchedule|MessageConfig)(\\$.*)?")
            .should().callMethod(MessageConfig.class, "sendMode")
            .orShould().accessField(MessageConfig.SendMode.class, "IMMEDIATE")
            .orShould().accessField(MessageConfig.SendMode.class, "TICK")
            .because("the send mode is a strategy chosen once (SendSchedule.of), not a flag tested on the way");

    @ArchTest
    static final ArchRule THE_COMPOSER_DOES_NOT_DECIDE_WHEN = noClasses()
            .that().haveNameMatching(COMPOSER)
            .should().dependOnClassesThat().haveNameMatching(SCHEDULES + "|" + ROUND + "|" + ENDPOINT)
            .because("what goes into a packet does not call back into when packets go");

    @ArchTest
    static final ArchRule THE_ROUND_DOES_NOT_CALL_THE_SCHEDULES = noClasses()
            .that().haveNameMatching(ROUND)
            .should().dependOnClassesThat().haveNameMatching(SCHEDULES + "|" + ENDPOINT)
            .because("a send round is run by the schedule, and does not call it back");

    @ArchTest
    static final ArchRule THE_SCHEDULES_DO_NOT_FILL_PACKETS = noClasses()
            .that().haveNameMatching(SCHEDULES)
            .should().dependOnClassesThat().haveNameMatching(COMPOSER + "|" + ENDPOINT + "|" + PKG + "(PacketLog|PacketLink|FrameWriter)")
            .because("the schedules decide when, through the SendRound; what goes into a packet is the composer's");

    @ArchTest
    static final ArchRule THE_ACK_AND_TIMER_STATE_CALL_NO_SENDER = noClasses()
            .that().haveNameMatching(LEAVES)
            .should().dependOnClassesThat().haveNameMatching(SCHEDULES + "|" + ROUND + "|" + COMPOSER + "|" + ENDPOINT)
            .because("the acks owed and the resend timer are state the send side reads, not parts that send");
}
