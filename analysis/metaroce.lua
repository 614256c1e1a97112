--[[
metaroce.lua: Wireshark/tshark dissector for the MetaRoCE headers of this
model (model/wire/metaroce-data-header.h and metaroce-ack-header.h).

Usage
  tshark:    tshark -X lua_script:analysis/metaroce.lua -r capture.pcap
             tshark -X lua_script:analysis/metaroce.lua -r capture.pcap -V
             tshark -X lua_script:analysis/metaroce.lua -r capture.pcap \
                    -Y metaroce.opcode==0x10 -T fields -e metaroce.cum -e metaroce.sack_count
  Wireshark: copy this file into the personal Lua plugin folder (Help > About
             Wireshark > Folders > "Personal Lua Plugins", usually
             ~/.local/lib/wireshark/plugins/), or start it with
             wireshark -X lua_script:analysis/metaroce.lua capture.pcap
  Captures:  build/examples/metaroce-write --pcap=PREFIX writes PREFIX-<node>-<dev>.pcap;
             FabricBuilder::EnablePcap(prefix, port) in C++.

Both headers ride on UDP destination port 4792 (ns3::MetaRoceTransport's
UdpPort attribute; another port can be set in the protocol preferences or
with Decode As). The first byte tells them apart: 0x01 WRITE and 0x02 SEND
are data packets, 0x10 an ACK. All fields are in network byte order.

Data header, 48 bytes, followed by the payload:
   0 opcode (1)   1 flags (1): 0x01 first, 0x02 last, 0x04 retx, 0x08 probe
   2 path id (2)  4 path epoch (1)  5 version (1) = 1   6 stream (2)
   8 destination connection id (4)  12 path sequence number (4)
  16 message sequence in the stream (4)   20 message length (4)
  24 byte offset in the message (4)
  28 WRITE: remote address (8)   SEND: 0 (8)
  36 WRITE: remote key (4)       SEND: receive match (4)
  40 send timestamp, picoseconds (8)

ACK header, 64 bytes:
   0 opcode (1) = 0x10   1 flags (1): 0x01 ECE, 0x02 RNR, 0x04 access error,
                                      0x08 length error
   2 path id (2)  4 path epoch (1)  5 version (1) = 1   6 reserved (2)
   8 destination connection id (4): the data sender's connection
  12 cumulative sequence (4)   16 trigger sequence (4)   20 rate hint, Mb/s (4)
  24 timestamp echo, picoseconds (8)
  32 SACK bitmap (32): 4 x 64-bit words, word 0 first, each big-endian;
     bit i (word i/64, bit i%64 of that word) = sequence cumulative + 1 + i

A packet shorter than its header, or with an unknown opcode or version, is
rejected (the dissector returns 0) so that other dissectors can try it.
--]]

local VERSION = 1
local DATA_BYTES = 48
local ACK_BYTES = 64
local SACK_BITS = 256

local OP_WRITE = 0x01
local OP_SEND = 0x02
local OP_ACK = 0x10

local opcode_names = {
    [OP_WRITE] = "WRITE",
    [OP_SEND] = "SEND",
    [OP_ACK] = "ACK",
}

local metaroce = Proto("metaroce", "MetaRoCE")

local f = {
    opcode = ProtoField.uint8("metaroce.opcode", "Opcode", base.HEX, opcode_names),
    flags = ProtoField.uint8("metaroce.flags", "Flags", base.HEX),
    -- data flags
    first = ProtoField.bool("metaroce.flags.first", "First packet of the message", 8, nil, 0x01),
    last = ProtoField.bool("metaroce.flags.last", "Last packet of the message", 8, nil, 0x02),
    retx = ProtoField.bool("metaroce.flags.retx", "Retransmission", 8, nil, 0x04),
    probe = ProtoField.bool("metaroce.flags.probe", "Probe (path being probed after a failure)",
                            8, nil, 0x08),
    -- ACK flags
    ece = ProtoField.bool("metaroce.flags.ece", "ECE (trigger arrived CE-marked)", 8, nil, 0x01),
    rnr = ProtoField.bool("metaroce.flags.rnr", "RNR (no posted receive: not placed)", 8, nil,
                          0x02),
    access_error = ProtoField.bool("metaroce.flags.access_error",
                                   "Access error (bad key or range: not placed)", 8, nil, 0x04),
    length_error = ProtoField.bool("metaroce.flags.length_error",
                                   "Length error (longer than the posted receive)", 8, nil, 0x08),
    path = ProtoField.uint16("metaroce.path", "Path id", base.DEC),
    epoch = ProtoField.uint8("metaroce.epoch", "Path epoch", base.DEC),
    version = ProtoField.uint8("metaroce.version", "Version", base.DEC),
    stream = ProtoField.uint16("metaroce.stream", "Stream", base.DEC),
    reserved = ProtoField.bytes("metaroce.reserved", "Reserved"),
    conn = ProtoField.uint32("metaroce.conn", "Destination connection id", base.DEC),
    psn = ProtoField.uint32("metaroce.psn", "Path sequence number", base.DEC),
    msn = ProtoField.uint32("metaroce.msn", "Message sequence number", base.DEC),
    msg_len = ProtoField.uint32("metaroce.msg_len", "Message length", base.DEC),
    offset = ProtoField.uint32("metaroce.offset", "Offset in the message", base.DEC),
    raddr = ProtoField.uint64("metaroce.raddr", "Remote address", base.HEX),
    rkey = ProtoField.uint32("metaroce.rkey", "Remote key", base.DEC),
    match = ProtoField.uint32("metaroce.match", "Receive match (send sequence)", base.DEC),
    ts = ProtoField.uint64("metaroce.ts", "Send timestamp (ps)", base.DEC),
    payload_len = ProtoField.uint32("metaroce.payload_len", "Payload length", base.DEC),
    cum = ProtoField.uint32("metaroce.cum", "Cumulative sequence", base.DEC),
    trigger = ProtoField.uint32("metaroce.trigger", "Trigger sequence", base.DEC),
    rate_hint_mbps = ProtoField.uint32("metaroce.rate_hint_mbps", "Rate hint (Mb/s, 0 = none)",
                                       base.DEC),
    ts_echo = ProtoField.uint64("metaroce.ts_echo", "Timestamp echo (ps)", base.DEC),
    sack = ProtoField.bytes("metaroce.sack", "SACK bitmap"),
    sack_word = ProtoField.uint64("metaroce.sack.word", "SACK word", base.HEX),
    sack_count = ProtoField.uint32("metaroce.sack_count", "SACKed packets", base.DEC),
    sack_psn = ProtoField.uint32("metaroce.sack_psn", "SACKed sequence", base.DEC),
}
metaroce.fields = f

local ef = {
    past_end = ProtoExpert.new("metaroce.past_end", "Payload extends past the message length",
                               expert.group.MALFORMED, expert.severity.WARN),
    trailing = ProtoExpert.new("metaroce.trailing", "Bytes after the ACK header",
                               expert.group.PROTOCOL, expert.severity.WARN),
    error_flag = ProtoExpert.new("metaroce.error_flag", "ACK reports an error",
                                 expert.group.RESPONSE_CODE, expert.severity.NOTE),
}
metaroce.experts = ef

metaroce.prefs.udp_port = Pref.uint("UDP port", 4792, "UDP destination port of MetaRoCE packets")

local data_dissector = Dissector.get("data")

-- Names of the set flag bits, e.g. "FIRST,LAST", or "" if none.
local function flag_names(value, names)
    local out = {}
    local bit = 1
    for _, name in ipairs(names) do
        if math.floor(value / bit) % 2 == 1 then
            out[#out + 1] = name
        end
        bit = bit * 2
    end
    return table.concat(out, ",")
end

local DATA_FLAG_NAMES = { "FIRST", "LAST", "RETX", "PROBE" }
local ACK_FLAG_NAMES = { "ECE", "RNR", "ACCESS_ERROR", "LENGTH_ERROR" }

-- Fields common to both headers (bytes 0-5); returns the flags subtree.
local function add_common(tree, tvb)
    tree:add(f.opcode, tvb(0, 1))
    local flags_item = tree:add(f.flags, tvb(1, 1))
    tree:add(f.path, tvb(2, 2))
    tree:add(f.epoch, tvb(4, 1))
    tree:add(f.version, tvb(5, 1))
    return flags_item
end

local function dissect_data(tvb, pinfo, tree, opcode)
    local flags = tvb(1, 1):uint()
    local length = tvb:len()
    local subtree = tree:add(metaroce, tvb(0, DATA_BYTES), "MetaRoCE " .. opcode_names[opcode])
    local flags_item = add_common(subtree, tvb)
    flags_item:add(f.first, tvb(1, 1))
    flags_item:add(f.last, tvb(1, 1))
    flags_item:add(f.retx, tvb(1, 1))
    flags_item:add(f.probe, tvb(1, 1))
    local names = flag_names(flags, DATA_FLAG_NAMES)
    if names ~= "" then
        flags_item:append_text(" (" .. names .. ")")
    end
    subtree:add(f.stream, tvb(6, 2))
    subtree:add(f.conn, tvb(8, 4))
    subtree:add(f.psn, tvb(12, 4))
    subtree:add(f.msn, tvb(16, 4))
    subtree:add(f.msg_len, tvb(20, 4))
    subtree:add(f.offset, tvb(24, 4))
    if opcode == OP_WRITE then
        subtree:add(f.raddr, tvb(28, 8))
        subtree:add(f.rkey, tvb(36, 4))
    else
        subtree:add(f.reserved, tvb(28, 8))
        subtree:add(f.match, tvb(36, 4))
    end
    subtree:add(f.ts, tvb(40, 8))
    local payload = length - DATA_BYTES
    subtree:add(f.payload_len, payload):set_generated()

    local msg_len = tvb(20, 4):uint()
    local offset = tvb(24, 4):uint()
    if offset + payload > msg_len then
        subtree:add_proto_expert_info(ef.past_end)
    end

    local info = string.format("%s conn=%u path=%u/%u psn=%u msn=%u off=%u",
                               opcode_names[opcode], tvb(8, 4):uint(), tvb(2, 2):uint(),
                               tvb(4, 1):uint(), tvb(12, 4):uint(), tvb(16, 4):uint(), offset)
    if names ~= "" then
        info = info .. " [" .. names .. "]"
    end
    pinfo.cols.info:set(info)

    if payload > 0 then
        data_dissector:call(tvb(DATA_BYTES):tvb(), pinfo, tree)
    end
    return length
end

local function dissect_ack(tvb, pinfo, tree)
    local flags = tvb(1, 1):uint()
    local length = tvb:len()
    local subtree = tree:add(metaroce, tvb(0, ACK_BYTES), "MetaRoCE ACK")
    local flags_item = add_common(subtree, tvb)
    flags_item:add(f.ece, tvb(1, 1))
    flags_item:add(f.rnr, tvb(1, 1))
    flags_item:add(f.access_error, tvb(1, 1))
    flags_item:add(f.length_error, tvb(1, 1))
    local names = flag_names(flags, ACK_FLAG_NAMES)
    if names ~= "" then
        flags_item:append_text(" (" .. names .. ")")
    end
    if flags % 16 >= 0x02 then -- RNR, access or length error
        flags_item:add_proto_expert_info(ef.error_flag)
    end
    subtree:add(f.reserved, tvb(6, 2))
    subtree:add(f.conn, tvb(8, 4))
    subtree:add(f.cum, tvb(12, 4))
    subtree:add(f.trigger, tvb(16, 4))
    subtree:add(f.rate_hint_mbps, tvb(20, 4))
    subtree:add(f.ts_echo, tvb(24, 8))

    -- SACK: bit i of the vector is bit (i % 64) of word i / 64; word w is
    -- bytes 32 + 8w .. 32 + 8w + 7, most significant byte first, so byte k of
    -- the word holds bits (7 - k) * 8 .. (7 - k) * 8 + 7. Counted byte by byte
    -- (no 64-bit arithmetic needed).
    local cum = tvb(12, 4):uint()
    local sack_item = subtree:add(f.sack, tvb(32, 32))
    local sacked = {}
    for w = 0, 3 do
        sack_item:add(f.sack_word, tvb(32 + 8 * w, 8))
        for k = 0, 7 do
            local byte = tvb(32 + 8 * w + k, 1):uint()
            local base_bit = w * 64 + (7 - k) * 8
            local b = 0
            while byte > 0 do
                if byte % 2 == 1 then
                    sacked[#sacked + 1] = base_bit + b
                end
                byte = math.floor(byte / 2)
                b = b + 1
            end
        end
    end
    table.sort(sacked)
    subtree:add(f.sack_count, #sacked):set_generated()
    for _, i in ipairs(sacked) do
        sack_item:add(f.sack_psn, (cum + 1 + i) % 4294967296):set_generated()
    end

    if length > ACK_BYTES then
        subtree:add_proto_expert_info(ef.trailing)
        data_dissector:call(tvb(ACK_BYTES):tvb(), pinfo, tree)
    end

    local info = string.format("ACK conn=%u path=%u/%u cum=%u sacked=%u hint=%uMbps",
                               tvb(8, 4):uint(), tvb(2, 2):uint(), tvb(4, 1):uint(), cum,
                               #sacked, tvb(20, 4):uint())
    if names ~= "" then
        info = info .. " [" .. names .. "]"
    end
    pinfo.cols.info:set(info)
    return length
end

function metaroce.dissector(tvb, pinfo, tree)
    local length = tvb:len()
    if length < DATA_BYTES then
        return 0
    end
    local opcode = tvb(0, 1):uint()
    local version = tvb(5, 1):uint()
    if version ~= VERSION then
        return 0
    end
    if opcode == OP_WRITE or opcode == OP_SEND then
        pinfo.cols.protocol:set("MetaRoCE")
        return dissect_data(tvb, pinfo, tree, opcode)
    elseif opcode == OP_ACK and length >= ACK_BYTES then
        pinfo.cols.protocol:set("MetaRoCE")
        return dissect_ack(tvb, pinfo, tree)
    end
    return 0
end

local udp_table = DissectorTable.get("udp.port")
local registered_port = metaroce.prefs.udp_port
udp_table:add(registered_port, metaroce)

function metaroce.prefs_changed()
    if metaroce.prefs.udp_port ~= registered_port then
        udp_table:remove(registered_port, metaroce)
        registered_port = metaroce.prefs.udp_port
        udp_table:add(registered_port, metaroce)
    end
end
