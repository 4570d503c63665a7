/** The scale subcommand: one server, thousands of clients at 20 msg/s from a few client JVMs; server CPU per message, heap per connection. */
package io.reliableudp.bench.scale;
