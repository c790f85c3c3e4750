import Testing
@testable import LocusNATS

/// A durable consumer's deliveries handed on in stream order with nothing skipped
/// (`DeliveryOrder`): a lost delivery stops the flow until the servers deliver again.
struct DeliveryOrderTests {
    @Test func consecutiveDeliveriesAreHandedOn() {
        var order = DeliveryOrder()
        #expect(order.judge(delivery: 7, stream: 100, timesDelivered: 1) == .next, "the first after a start is taken as it is")
        #expect(order.judge(delivery: 8, stream: 104, timesDelivered: 1) == .next, "stream sequences of a filtered consumer may jump")
        #expect(order.handedThrough == 104)
        #expect(order.gaps == 0)
    }

    @Test func aRepeatOfWorkHandedOnIsDropped() {
        var order = DeliveryOrder()
        _ = order.judge(delivery: 1, stream: 10, timesDelivered: 1)
        _ = order.judge(delivery: 2, stream: 11, timesDelivered: 1)
        #expect(order.judge(delivery: 3, stream: 10, timesDelivered: 2) == .repeated, "re-delivered after the acknowledgement wait")
        #expect(order.judge(delivery: 4, stream: 12, timesDelivered: 1) == .next, "the repeat's delivery counts: no gap")
    }

    @Test func afterALostDeliveryNothingPassesUntilTheServersDeliverAgain() {
        var order = DeliveryOrder()
        _ = order.judge(delivery: 1, stream: 10, timesDelivered: 1)
        // Deliveries 2 and 3 (stream 11, 12) were lost on the way.
        #expect(order.judge(delivery: 4, stream: 13, timesDelivered: 1) == .afterGap)
        #expect(order.judge(delivery: 5, stream: 14, timesDelivered: 1) == .afterGap, "still overtaking the lost ones")
        #expect(order.gaps == 1)
        #expect(order.handedThrough == 10, "nothing past the gap is acknowledged")
        // The acknowledgement wait passes: the servers deliver again, oldest first.
        #expect(order.judge(delivery: 6, stream: 11, timesDelivered: 2) == .next)
        #expect(order.judge(delivery: 7, stream: 12, timesDelivered: 2) == .next)
        #expect(order.judge(delivery: 8, stream: 13, timesDelivered: 2) == .next)
        #expect(order.judge(delivery: 9, stream: 14, timesDelivered: 2) == .next)
        #expect(order.judge(delivery: 10, stream: 15, timesDelivered: 1) == .next)
        #expect(order.gaps == 1)
    }

    @Test func aConsumerLeaderThatForgotDeliveriesStartsAgainWithoutAGap() {
        var order = DeliveryOrder()
        _ = order.judge(delivery: 50, stream: 500, timesDelivered: 1)
        #expect(order.judge(delivery: 48, stream: 499, timesDelivered: 2) == .repeated)
        #expect(order.judge(delivery: 49, stream: 500, timesDelivered: 2) == .repeated)
        #expect(order.judge(delivery: 50, stream: 501, timesDelivered: 1) == .next)
        #expect(order.gaps == 0)
    }
}
