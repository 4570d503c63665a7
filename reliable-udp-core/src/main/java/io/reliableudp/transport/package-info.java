/**
 * Transport: a node on one {@link io.reliableudp.transport.DatagramPort} (a UDP socket or a port of an
 * {@link io.reliableudp.transport.InMemoryNetwork}), serving many peers; the public entry point without Spring.
 *
 * <p>Inside the package the classes stand in tiers, and a class depends only on its own tier or a lower
 * one (what a lower class needs from a higher one it names in a narrow interface of its own, which the
 * higher one implements, e.g. {@code PeerDriver.Lane}, {@code PeerDriver.Node}, {@code IoLane.Node},
 * {@code Acceptor.Node}); no two classes depend on each other. Top first:
 * <ol>
 * <li><b>node</b>: {@code DatagramNode}, the {@link io.reliableudp.transport.ReliableUdpNode} implementation,
 *     which wires the parts below and holds what all lanes share (peer table, acceptor, counters, clock);</li>
 * <li><b>acceptor</b>: {@code Acceptor}, the server side of connecting;</li>
 * <li><b>handle</b>: {@code PeerHandle}, the {@link io.reliableudp.transport.Peer} application threads call:
 *     it queues and reads snapshots;</li>
 * <li><b>lane</b>: {@code IoLane} (one I/O thread, its socket and its turn), its {@code LaneSchedule}
 *     ({@code ImmediateLaneSchedule} or {@code TickLaneSchedule}, the send mode chosen once), {@code DirtyPeers},
 *     {@code NodeEvents} (listener dispatch), {@code PeerTable};</li>
 * <li><b>driver</b>: {@code PeerDriver} (one peer's connection behind its lock, what the lane's thread does
 *     with it, the connection's events), {@code PeerLock} (that lock, completing send futures after it),
 *     {@code PeerPauses} (its receive pauses) and {@code PeerTransmitter} (its transmit path and link
 *     conditioner);</li>
 * <li><b>port</b>: {@code IoLoop}, {@code WakeTimer}, {@code UdpDatagramPort} (its sends' traffic class:
 *     {@code SocketMarking}), {@code InMemoryNetwork};</li>
 * <li><b>base</b>: the public types (configuration, {@code Peer}, listener, statistics, identities,
 *     {@code DatagramPort}, {@code ReliableUdpNode}) and small shared parts ({@code NodeCounters},
 *     {@code NodeClock}, {@code ConditionerSetting}, {@code PathBudget}, {@code PeerTimers}, {@code SourceBudget},
 *     {@code Sessions}).</li>
 * </ol>
 * The one arrow up: {@code ReliableUdpNode.start} makes a {@code DatagramNode}. {@code TransportTiersTest}
 * checks all of this. Which thread owns which state: docs/architecture.md.
 */
@NullMarked
package io.reliableudp.transport;

import org.jspecify.annotations.NullMarked;
