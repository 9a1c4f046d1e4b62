// sarama_check: Shopify's sarama 1.22 (Debian's golang-github-shopify-sarama-dev)
// against a Kafka cluster, at one Kafka protocol level (sarama's
// Config.Version). Built in GOPATH mode with Debian's Go by
// tests/kafka/sarama/sarama_test.py, which starts troupe.
//
//	sarama_check -brokers H:P,... -version 0.10.2|2.1 -case produce|group -topic T
//
// What sarama sends at each level (sarama 1.22's request versions):
//
//	                    0.10.2                   2.1
//	Produce             v2 (magic 1 messages)   v3 (RecordBatch v2)
//	Fetch               v3                      v4
//	ListOffsets         v1                      v1
//	Metadata            v1                      v5
//	OffsetCommit        v1                      v1
//	OffsetFetch         v1                      v1
//	FindCoordinator     v0                      v0
//	JoinGroup           v1                      v1
//	SyncGroup, Heartbeat, LeaveGroup  v0        v0
//
// Cases:
//
//	produce  a SyncProducer with RequiredAcks = WaitForAll sends keyed
//	         records to every partition, uncompressed and with gzip, snappy
//	         and lz4 (a wrapper message per batch below 0.11); every record
//	         is acknowledged with the next offset of its partition; a
//	         partition consumer reads them back with the same offsets,
//	         keys, values and (from 0.10) timestamps; ListOffsets gives the
//	         end offsets.
//	group    three ConsumerGroup members join one by one and split the
//	         partitions; each member marks every message it handles
//	         (MarkMessage, auto-commit every 100 ms and on every session's
//	         end). Before every change of ownership the group's committed
//	         offsets (OffsetFetch v1) must equal the delivered ends, so the
//	         uncommitted tail is empty and a rebalance may re-deliver
//	         nothing: every re-delivery is counted and is a failure. One
//	         member leaves (Close), the other two take its partitions over
//	         and get every new record once. All close; a new member
//	         resumes at the committed offsets and gets only newer records.
//
// Prints "ok: ..." per check; on the first failed check prints "FAIL: ..."
// and exits 1. sarama's own log goes to stderr, prefixed "sarama: ".
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

const partitions = 6

var (
	brokers []string
	version sarama.KafkaVersion
	topic   string
)

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func ok(format string, args ...interface{}) {
	fmt.Printf("ok: "+format+"\n", args...)
}

func baseConfig(clientID string) *sarama.Config {
	c := sarama.NewConfig()
	c.Version = version
	c.ClientID = clientID
	c.Net.DialTimeout = 5 * time.Second
	c.Net.ReadTimeout = 10 * time.Second
	c.Net.WriteTimeout = 5 * time.Second
	c.Metadata.Retry.Max = 10
	c.Metadata.Retry.Backoff = 200 * time.Millisecond
	return c
}

// createTopic makes the topic with sarama's ClusterAdmin at 2.1
// (CreateTopics v2): topic creation is not what this program checks.
func createTopic(name string) {
	c := baseConfig("sarama-admin")
	c.Version = sarama.V2_1_0_0
	admin, err := sarama.NewClusterAdmin(brokers, c)
	if err != nil {
		fail("cluster admin: %v", err)
	}
	defer admin.Close()
	err = admin.CreateTopic(name, &sarama.TopicDetail{
		NumPartitions: partitions, ReplicationFactor: 3}, false)
	if err != nil {
		fail("CreateTopics %s: %v", name, err)
	}
}

func newProducer(codec sarama.CompressionCodec) sarama.SyncProducer {
	c := baseConfig("sarama-producer")
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Return.Errors = true
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Producer.Compression = codec
	c.Producer.Timeout = 10 * time.Second
	c.Producer.Retry.Max = 5
	c.Producer.Retry.Backoff = 200 * time.Millisecond
	p, err := sarama.NewSyncProducer(brokers, c)
	if err != nil {
		fail("NewSyncProducer: %v", err)
	}
	return p
}

type record struct {
	partition int32
	offset    int64
	key       string
	value     string
	timestamp time.Time
}

// produce sends count records to every partition in one SendMessages call
// and checks that partition p's records got the offsets next[p],
// next[p]+1, ... in order. It returns what was sent, with offsets.
func produce(p sarama.SyncProducer, phase string, count int,
	next map[int32]int64, stamp time.Time) []record {
	var msgs []*sarama.ProducerMessage
	for i := 0; i < count; i++ {
		for part := int32(0); part < partitions; part++ {
			key := fmt.Sprintf("%s-k-%d-%d", phase, part, i)
			value := fmt.Sprintf("%s-%d-%d", phase, part, i)
			msgs = append(msgs, &sarama.ProducerMessage{
				Topic: topic, Partition: part,
				Key:       sarama.StringEncoder(key),
				Value:     sarama.StringEncoder(value),
				Timestamp: stamp.Add(time.Duration(i) * time.Millisecond),
			})
		}
	}
	if err := p.SendMessages(msgs); err != nil {
		if errs, isList := err.(sarama.ProducerErrors); isList {
			fail("phase %s: %d of %d records not acknowledged, first: %v",
				phase, len(errs), len(msgs), errs[0].Err)
		}
		fail("phase %s: SendMessages: %v", phase, err)
	}
	var sent []record
	for i, m := range msgs {
		if m.Offset != next[m.Partition] {
			fail("phase %s: record %d to partition %d acknowledged at offset %d, expected %d",
				phase, i, m.Partition, m.Offset, next[m.Partition])
		}
		next[m.Partition]++
		k, _ := m.Key.Encode()
		v, _ := m.Value.Encode()
		sent = append(sent, record{m.Partition, m.Offset, string(k),
			string(v), m.Timestamp})
	}
	return sent
}

// -- produce ----------------------------------------------------------------

func caseProduce() {
	createTopic(topic)
	next := map[int32]int64{}
	var sent []record
	// Timestamps in whole milliseconds, as the wire carries them.
	stamp := time.Unix(0, (time.Now().UnixNano()/1e6)*1e6).Add(-time.Hour)
	codecs := []struct {
		name  string
		codec sarama.CompressionCodec
	}{{"none", sarama.CompressionNone}, {"gzip", sarama.CompressionGZIP},
		{"snappy", sarama.CompressionSnappy}, {"lz4", sarama.CompressionLZ4}}
	for i, c := range codecs {
		p := newProducer(c.codec)
		batch := produce(p, c.name, 20, next,
			stamp.Add(time.Duration(i)*time.Second))
		p.Close()
		ok("acks=all: %d records compressed with %s acknowledged, each at its partition's next offset",
			len(batch), c.name)
		sent = append(sent, batch...)
	}

	client, err := sarama.NewClient(brokers, baseConfig("sarama-reader"))
	if err != nil {
		fail("NewClient: %v", err)
	}
	defer client.Close()
	for part := int32(0); part < partitions; part++ {
		end, err := client.GetOffset(topic, part, sarama.OffsetNewest)
		if err != nil {
			fail("ListOffsets latest of partition %d: %v", part, err)
		}
		if end != next[part] {
			fail("ListOffsets: partition %d ends at %d, %d records were acknowledged",
				part, end, next[part])
		}
		start, err := client.GetOffset(topic, part, sarama.OffsetOldest)
		if err != nil {
			fail("ListOffsets earliest of partition %d: %v", part, err)
		}
		if start != 0 {
			fail("ListOffsets: partition %d starts at %d, expected 0", part, start)
		}
	}
	ok("ListOffsets: every partition's end offset is its acknowledged count")

	consumer, err := sarama.NewConsumerFromClient(client)
	if err != nil {
		fail("NewConsumer: %v", err)
	}
	defer consumer.Close()
	byPart := map[int32][]record{}
	for _, r := range sent {
		byPart[r.partition] = append(byPart[r.partition], r)
	}
	for part := int32(0); part < partitions; part++ {
		pc, err := consumer.ConsumePartition(topic, part, sarama.OffsetOldest)
		if err != nil {
			fail("ConsumePartition %d: %v", part, err)
		}
		for _, want := range byPart[part] {
			var got *sarama.ConsumerMessage
			select {
			case got = <-pc.Messages():
			case err := <-pc.Errors():
				fail("partition %d: consumer error: %v", part, err)
			case <-time.After(15 * time.Second):
				fail("partition %d: record at offset %d not received within 15 s",
					part, want.offset)
			}
			if got.Offset != want.offset || string(got.Key) != want.key ||
				string(got.Value) != want.value {
				fail("partition %d: read offset %d key %q value %q, expected offset %d key %q value %q",
					part, got.Offset, got.Key, got.Value, want.offset, want.key,
					want.value)
			}
			// Messages carry timestamps from 0.10 (magic 1) on.
			if version.IsAtLeast(sarama.V0_10_0_0) &&
				!got.Timestamp.Equal(want.timestamp) {
				fail("partition %d offset %d: timestamp %v, produced with %v",
					part, got.Offset, got.Timestamp, want.timestamp)
			}
		}
		pc.Close()
	}
	ok("a partition consumer read back all %d records with their offsets, keys, values and timestamps",
		len(sent))
}

// -- group ------------------------------------------------------------------

type delivery struct {
	member     string
	generation int32
	partition  int32
	offset     int64
	value      string
}

type sessionState struct {
	generation int32
	claims     []int32
	live       bool
}

type tracker struct {
	mu         sync.Mutex
	deliveries []delivery
	sessions   map[string]*sessionState
	// Per partition: the highest delivered offset + 1.
	delivered map[int32]int64
	// Re-deliveries: records received again, and the claims that started
	// before their partition's delivered end.
	redelivered []delivery
	claimStarts []string
}

func newTracker() *tracker {
	return &tracker{sessions: map[string]*sessionState{},
		delivered: map[int32]int64{}}
}

type handler struct {
	name string
	t    *tracker
}

func (h *handler) Setup(s sarama.ConsumerGroupSession) error {
	h.t.mu.Lock()
	defer h.t.mu.Unlock()
	h.t.sessions[h.name] = &sessionState{s.GenerationID(),
		append([]int32(nil), s.Claims()[topic]...), true}
	return nil
}

func (h *handler) Cleanup(s sarama.ConsumerGroupSession) error {
	h.t.mu.Lock()
	defer h.t.mu.Unlock()
	if st := h.t.sessions[h.name]; st != nil &&
		st.generation == s.GenerationID() {
		st.live = false
	}
	return nil
}

func (h *handler) ConsumeClaim(s sarama.ConsumerGroupSession,
	claim sarama.ConsumerGroupClaim) error {
	h.t.mu.Lock()
	start := claim.InitialOffset()
	end := h.t.delivered[claim.Partition()]
	if start >= 0 && start < end {
		h.t.claimStarts = append(h.t.claimStarts, fmt.Sprintf(
			"%s (generation %d) started partition %d at offset %d, %d records were already delivered",
			h.name, s.GenerationID(), claim.Partition(), start, end))
	}
	h.t.mu.Unlock()
	for m := range claim.Messages() {
		d := delivery{h.name, s.GenerationID(), m.Partition, m.Offset,
			string(m.Value)}
		h.t.mu.Lock()
		h.t.deliveries = append(h.t.deliveries, d)
		if m.Offset < h.t.delivered[m.Partition] {
			h.t.redelivered = append(h.t.redelivered, d)
		} else {
			h.t.delivered[m.Partition] = m.Offset + 1
		}
		h.t.mu.Unlock()
		s.MarkMessage(m, "")
	}
	return nil
}

type member struct {
	name   string
	group  sarama.ConsumerGroup
	cancel context.CancelFunc
	done   chan struct{}
}

func startMember(name, groupID string, t *tracker) *member {
	c := baseConfig(name)
	c.Consumer.Return.Errors = true
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.CommitInterval = 100 * time.Millisecond
	c.Consumer.Group.Session.Timeout = 6 * time.Second
	c.Consumer.Group.Heartbeat.Interval = 300 * time.Millisecond
	c.Consumer.Group.Rebalance.Timeout = 10 * time.Second
	c.Consumer.Group.Rebalance.Retry.Backoff = 200 * time.Millisecond
	c.Consumer.MaxWaitTime = 200 * time.Millisecond
	g, err := sarama.NewConsumerGroup(brokers, groupID, c)
	if err != nil {
		fail("%s: NewConsumerGroup: %v", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{name, g, cancel, make(chan struct{})}
	go func() {
		for err := range g.Errors() {
			log.Printf("%s: group error: %v", name, err)
		}
	}()
	go func() {
		defer close(m.done)
		h := &handler{name, t}
		for ctx.Err() == nil {
			if err := g.Consume(ctx, []string{topic}, h); err != nil {
				if err == sarama.ErrClosedConsumerGroup {
					return
				}
				log.Printf("%s: Consume: %v", name, err)
				time.Sleep(200 * time.Millisecond)
			}
		}
	}()
	return m
}

// stop closes the member: its session ends (a last commit) and it leaves
// the group (LeaveGroup).
func (m *member) stop(t *tracker) {
	m.cancel()
	if err := m.group.Close(); err != nil {
		log.Printf("%s: Close: %v", m.name, err)
	}
	select {
	case <-m.done:
	case <-time.After(15 * time.Second):
		fail("%s did not stop within 15 s of Close", m.name)
	}
	t.mu.Lock()
	delete(t.sessions, m.name)
	t.mu.Unlock()
}

// awaitStable waits until exactly the named members each hold a live
// session of one generation, each with at least one partition, and their
// claims cover every partition once. It returns the claims.
func awaitStable(t *tracker, names []string, what string) map[string][]int32 {
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		t.mu.Lock()
		claims := map[string][]int32{}
		var gen int32 = -1
		stable := len(t.sessions) == len(names)
		var owned []int
		for _, n := range names {
			st := t.sessions[n]
			if st == nil || !st.live || len(st.claims) == 0 ||
				(gen != -1 && st.generation != gen) {
				stable = false
				break
			}
			gen = st.generation
			claims[n] = st.claims
			for _, p := range st.claims {
				owned = append(owned, int(p))
			}
		}
		last = describeSessions(t)
		t.mu.Unlock()
		sort.Ints(owned)
		if stable && fmt.Sprint(owned) == fmt.Sprint([]int{0, 1, 2, 3, 4, 5}) {
			ok("%s: %s", what, last)
			return claims
		}
		time.Sleep(50 * time.Millisecond)
	}
	fail("%s: the group did not settle within 30 s: %s", what, last)
	return nil
}

func describeSessions(t *tracker) string {
	var names []string
	for n := range t.sessions {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		st := t.sessions[n]
		state := "live"
		if !st.live {
			state = "ended"
		}
		parts = append(parts, fmt.Sprintf("%s generation %d %s partitions %v",
			n, st.generation, state, st.claims))
	}
	return strings.Join(parts, ", ")
}

// awaitDelivered waits until every record of sent was delivered.
func awaitDelivered(t *tracker, sent []record, what string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		t.mu.Lock()
		got := map[string]bool{}
		for _, d := range t.deliveries {
			got[d.value] = true
		}
		t.mu.Unlock()
		var missing []string
		for _, r := range sent {
			if !got[r.value] {
				missing = append(missing, r.value)
			}
		}
		if len(missing) == 0 {
			ok("%s: all %d records delivered", what, len(sent))
			return
		}
		if time.Now().After(deadline) {
			if len(missing) > 5 {
				missing = append(missing[:5], "...")
			}
			fail("%s: %d of %d records not delivered within 30 s: %v", what,
				len(missing), len(sent), missing)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitCommitted waits until the group's committed offsets, read with
// OffsetFetch v1 from its coordinator as sarama reads them, equal the
// delivered ends (partitions with nothing delivered: nothing committed).
func awaitCommitted(client sarama.Client, groupID string, t *tracker,
	what string) {
	deadline := time.Now().Add(15 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		last = ""
		coordinator, err := client.Coordinator(groupID)
		if err != nil {
			last = fmt.Sprintf("FindCoordinator: %v", err)
			client.RefreshCoordinator(groupID)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		req := &sarama.OffsetFetchRequest{Version: 1, ConsumerGroup: groupID}
		for p := int32(0); p < partitions; p++ {
			req.AddPartition(topic, p)
		}
		resp, err := coordinator.FetchOffset(req)
		if err != nil {
			last = fmt.Sprintf("OffsetFetch v1: %v", err)
			client.RefreshCoordinator(groupID)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		t.mu.Lock()
		var diffs []string
		for p := int32(0); p < partitions; p++ {
			want := t.delivered[p]
			if want == 0 {
				want = -1
			}
			b := resp.GetBlock(topic, p)
			switch {
			case b == nil:
				diffs = append(diffs, fmt.Sprintf("partition %d missing", p))
			case b.Err != sarama.ErrNoError:
				diffs = append(diffs, fmt.Sprintf("partition %d: %v", p, b.Err))
			case b.Offset != want:
				diffs = append(diffs, fmt.Sprintf(
					"partition %d committed %d, delivered up to %d", p,
					b.Offset, want))
			}
		}
		t.mu.Unlock()
		if len(diffs) == 0 {
			ok("%s: the committed offsets (OffsetFetch v1) are the delivered ends, the uncommitted tail is empty",
				what)
			return
		}
		last = strings.Join(diffs, ", ")
		time.Sleep(100 * time.Millisecond)
	}
	fail("%s: the commits (OffsetCommit v1) never reached the group within 15 s: %s",
		what, last)
}

// checkNoRedelivery fails when any record was delivered twice.
func checkNoRedelivery(t *tracker, what string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.redelivered) > 0 || len(t.claimStarts) > 0 {
		for i, d := range t.redelivered {
			if i == 5 {
				fmt.Printf("  ... %d in all\n", len(t.redelivered))
				break
			}
			fmt.Printf("  re-delivered to %s (generation %d): partition %d offset %d %s\n",
				d.member, d.generation, d.partition, d.offset, d.value)
		}
		for _, s := range t.claimStarts {
			fmt.Printf("  %s\n", s)
		}
		fail("%s: %d of %d records delivered again after a rebalance with nothing uncommitted",
			what, len(t.redelivered), len(t.deliveries))
	}
	ok("%s: no record delivered twice (%d deliveries)", what,
		len(t.deliveries))
}

// ownersOf maps each partition to the members that received sent's records
// from it.
func ownersOf(t *tracker, sent []record) map[int32][]string {
	want := map[string]bool{}
	for _, r := range sent {
		want[r.value] = true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	seen := map[int32]map[string]bool{}
	for _, d := range t.deliveries {
		if want[d.value] {
			if seen[d.partition] == nil {
				seen[d.partition] = map[string]bool{}
			}
			seen[d.partition][d.member] = true
		}
	}
	owners := map[int32][]string{}
	for p, ms := range seen {
		for m := range ms {
			owners[p] = append(owners[p], m)
		}
		sort.Strings(owners[p])
	}
	return owners
}

func caseGroup() {
	createTopic(topic)
	groupID := topic + "-group"
	p := newProducer(sarama.CompressionNone)
	defer p.Close()
	next := map[int32]int64{}
	t := newTracker()
	stamp := time.Now()

	adminClient, err := sarama.NewClient(brokers, baseConfig("sarama-offsets"))
	if err != nil {
		fail("NewClient: %v", err)
	}
	defer adminClient.Close()

	// Phase a: 50 records a partition, before anyone consumes.
	a := produce(p, "a", 50, next, stamp)
	ok("acks=all producer: %d records acknowledged", len(a))

	// Members join one at a time; each join is a rebalance that moves
	// partitions whose records were all consumed and committed.
	c1 := startMember("c1", groupID, t)
	awaitStable(t, []string{"c1"}, "c1 alone")
	awaitDelivered(t, a, "phase a, c1 alone")
	awaitCommitted(adminClient, groupID, t, "phase a, before c2 joins")
	c2 := startMember("c2", groupID, t)
	awaitStable(t, []string{"c1", "c2"}, "c2 joined")
	awaitCommitted(adminClient, groupID, t, "before c3 joins")
	c3 := startMember("c3", groupID, t)
	claims := awaitStable(t, []string{"c1", "c2", "c3"},
		"three members split the partitions")
	checkNoRedelivery(t, "members joining")

	// Phase b: every record reaches exactly one member, the partition's
	// owner.
	b := produce(p, "b", 20, next, stamp)
	awaitDelivered(t, b, "phase b, three members")
	owner := map[int32]string{}
	for n, ps := range claims {
		for _, part := range ps {
			owner[part] = n
		}
	}
	for part, ms := range ownersOf(t, b) {
		if len(ms) != 1 || ms[0] != owner[part] {
			fail("phase b: partition %d's records went to %v, its owner is %s",
				part, ms, owner[part])
		}
	}
	checkNoRedelivery(t, "phase b")
	ok("phase b: each partition's records went to its one owner")

	// c3 leaves: c1 and c2 take its partitions over from the committed
	// offsets.
	awaitCommitted(adminClient, groupID, t, "before c3 leaves")
	left := claims["c3"]
	c3.stop(t)
	claims = awaitStable(t, []string{"c1", "c2"},
		fmt.Sprintf("c3 left (Close), c1 and c2 took its partitions %v over", left))
	c := produce(p, "c", 20, next, stamp)
	awaitDelivered(t, c, "phase c, after c3 left")
	owners := ownersOf(t, c)
	for _, part := range left {
		ms := owners[part]
		if len(ms) != 1 || (ms[0] != "c1" && ms[0] != "c2") {
			fail("phase c: c3's partition %d's records went to %v", part, ms)
		}
		found := false
		for _, x := range claims[ms[0]] {
			found = found || x == part
		}
		if !found {
			fail("phase c: partition %d's records went to %s, which does not claim it",
				part, ms[0])
		}
	}
	checkNoRedelivery(t, "after c3 left")
	ok("phase c: c3's partitions %v are consumed by the survivors", left)

	// Everybody leaves; a new member resumes from the committed offsets.
	awaitCommitted(adminClient, groupID, t, "before c1 and c2 leave")
	c1.stop(t)
	c2.stop(t)
	d := produce(p, "d", 10, next, stamp)
	c4 := startMember("c4", groupID, t)
	awaitStable(t, []string{"c4"}, "a new member c4 alone")
	awaitDelivered(t, d, "phase d, c4")
	// Let a late re-delivery show.
	time.Sleep(500 * time.Millisecond)
	checkNoRedelivery(t, "c4 resumed")
	t.mu.Lock()
	for _, dv := range t.deliveries {
		if dv.member == "c4" && !strings.HasPrefix(dv.value, "d-") {
			t.mu.Unlock()
			fail("c4 received %s, committed before it joined", dv.value)
		}
	}
	t.mu.Unlock()
	ok("c4 resumed at the committed offsets: it received only the %d newer records",
		len(d))
	awaitCommitted(adminClient, groupID, t, "c4 at the end")
	c4.stop(t)
}

func main() {
	brokerList := flag.String("brokers", "", "bootstrap brokers, host:port,...")
	versionText := flag.String("version", "", "sarama Config.Version: 0.10.2 or 2.1")
	caseName := flag.String("case", "", "produce or group")
	flag.StringVar(&topic, "topic", "", "topic to create and use")
	flag.Parse()
	if *brokerList == "" || topic == "" {
		fmt.Fprintln(os.Stderr, "usage: sarama_check -brokers B -version V -case produce|group -topic T")
		os.Exit(2)
	}
	brokers = strings.Split(*brokerList, ",")
	switch *versionText {
	case "0.10.2":
		version = sarama.V0_10_2_0
	case "2.1":
		version = sarama.V2_1_0_0
	default:
		fmt.Fprintln(os.Stderr, "sarama_check: -version must be 0.10.2 or 2.1")
		os.Exit(2)
	}
	sarama.Logger = log.New(os.Stderr, "sarama: ", log.Ltime|log.Lmicroseconds)
	log.SetPrefix("sarama_check: ")
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	switch *caseName {
	case "produce":
		caseProduce()
	case "group":
		caseGroup()
	default:
		fmt.Fprintln(os.Stderr, "sarama_check: -case must be produce or group")
		os.Exit(2)
	}
}
