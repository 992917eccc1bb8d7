import type { AccessDeniedData } from '../access/events.ts';
import type { ApprovalApprovedData, ApprovalExpiredData, ApprovalRejectedData, ApprovalSubmittedData } from '../approvals/events.ts';
import type { ConfigVersionCreatedData } from '../config/events.ts';
import type { DatabaseIdentifiedData, IntentHistoryPrunedData, LogSegmentArchivedData } from '../log/events.ts';
import type { NodeLabelsReplacedData, NodeMaintenanceData, NodeModeSetData, NodeRegisteredData, NodeRetiredData, ReconciliationModeSetData } from '../nodes/events.ts';
import type {
  AttemptAmbiguousData,
  AttemptDispatchedData,
  AttemptFailedData,
  AttemptQueuedData,
  AttemptSucceededData,
  IntentBlockedData,
  IntentConvergedData,
  IntentOpenedData,
  IntentReopenedData,
  IntentSupersededData,
  StreamDeletionRequestedData,
  StreamDesiredData,
  StreamRemovedData,
} from '../reconcile/events.ts';
import type { NodeReportedData } from '../reconcile/reported.ts';
import type {
  RolloutRecoveryClaimRetiredData,
  RolloutRecoveryCompletedData,
  RolloutRecoveryFailedData,
  RolloutRestoreOpenedData,
} from '../recovery/events.ts';
import type {
  RolloutBatchStartedData,
  RolloutCancelledData,
  RolloutConvergedData,
  RolloutGateFailedData,
  RolloutGatePassedData,
  RolloutGateSoakingData,
  RolloutHealthExecutedData,
  RolloutCreatedData,
  RolloutPausedData,
  RolloutResumedData,
  RolloutRolledBackData,
  RolloutTargetConvergedData,
  RolloutTargetFailedData,
  RolloutTargetRemovedData,
} from '../rollouts/events.ts';
import type { NewEvent, RecordedEvent } from './envelope.ts';
import type { FLEET_EVENT_TYPES } from './event-types.ts';

/** Every event type Fleetplane records, with its data at the current schema version (events/upcast.ts lifts older ones). */
export interface EventDataByType {
  NodeRegistered: NodeRegisteredData;
  NodeLabelsReplaced: NodeLabelsReplacedData;
  NodeDrained: NodeMaintenanceData;
  NodeUndrained: NodeMaintenanceData;
  NodeModeSet: NodeModeSetData;
  NodeRetired: NodeRetiredData;
  ReconciliationModeSet: ReconciliationModeSetData;
  NodeReported: NodeReportedData;
  AccessDenied: AccessDeniedData;
  StreamDesired: StreamDesiredData;
  StreamDeletionRequested: StreamDeletionRequestedData;
  StreamRemoved: StreamRemovedData;
  IntentOpened: IntentOpenedData;
  IntentSuperseded: IntentSupersededData;
  IntentBlocked: IntentBlockedData;
  IntentConverged: IntentConvergedData;
  IntentReopened: IntentReopenedData;
  AttemptQueued: AttemptQueuedData;
  AttemptDispatched: AttemptDispatchedData;
  AttemptSucceeded: AttemptSucceededData;
  AttemptFailed: AttemptFailedData;
  AttemptAmbiguous: AttemptAmbiguousData;
  ConfigVersionCreated: ConfigVersionCreatedData;
  RolloutCreated: RolloutCreatedData;
  RolloutBatchStarted: RolloutBatchStartedData;
  RolloutTargetConverged: RolloutTargetConvergedData;
  RolloutTargetFailed: RolloutTargetFailedData;
  RolloutTargetRemoved: RolloutTargetRemovedData;
  RolloutPaused: RolloutPausedData;
  RolloutResumed: RolloutResumedData;
  RolloutCancelled: RolloutCancelledData;
  RolloutConverged: RolloutConvergedData;
  RolloutRolledBack: RolloutRolledBackData;
  RolloutGateSoaking: RolloutGateSoakingData;
  RolloutGatePassed: RolloutGatePassedData;
  RolloutGateFailed: RolloutGateFailedData;
  RolloutHealthExecuted: RolloutHealthExecutedData;
  RolloutRestoreOpened: RolloutRestoreOpenedData;
  RolloutRecoveryCompleted: RolloutRecoveryCompletedData;
  RolloutRecoveryFailed: RolloutRecoveryFailedData;
  RolloutRecoveryClaimRetired: RolloutRecoveryClaimRetiredData;
  ApprovalSubmitted: ApprovalSubmittedData;
  ApprovalApproved: ApprovalApprovedData;
  ApprovalRejected: ApprovalRejectedData;
  ApprovalExpired: ApprovalExpiredData;
  LogSegmentArchived: LogSegmentArchivedData;
  IntentHistoryPruned: IntentHistoryPrunedData;
  DatabaseIdentified: DatabaseIdentifiedData;
}

/** A, which compiles only where B is one of A's members. */
type Covers<A, B extends A> = A;
type Listed = (typeof FLEET_EVENT_TYPES)[number];

/** Every event type. The compiler refuses this line unless FLEET_EVENT_TYPES names each of them and no other. */
export type FleetEventType = Covers<Listed, Covers<keyof EventDataByType, Listed>>;

/** An event a decision makes, one of a discriminated union: narrowing on `type` gives its data. */
export type FleetEvent<T extends FleetEventType = FleetEventType> = { [K in T]: NewEvent<K, EventDataByType[K]> }[T];

/** A stored event, upcast to its type's current data: narrowing on `type` gives its data. */
export type RecordedFleetEvent<T extends FleetEventType = FleetEventType> = { [K in T]: RecordedEvent<K, EventDataByType[K]> }[T];

/** An event of `type` on `streamId`. */
export const fleetEvent = <T extends FleetEventType>(streamId: string, type: T, data: EventDataByType[T]): NewEvent<T, EventDataByType[T]> => ({ streamId, type, data });
