//! ramp-cc inside quinn: HTTP/3 server and client, UDP link emulator, load generator.
