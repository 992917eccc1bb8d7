import { takeFrames } from './event-frames.ts';

test('F1 the stream\'s opening frame and its heartbeats give a cursor at most, never a change; an event is a change with its cursor', () => {
  const opening = ': following from c1\nid: c1\n\n';
  const heartbeat = ': heartbeat\n\n';
  const event = 'id: c2\nevent: NodeLabelsReplaced\ndata: {"type":"NodeLabelsReplaced"}\n\n';
  expect(takeFrames(opening + heartbeat + event + 'id: c3\nevent: No')).toEqual({
    frames: [
      { id: 'c1', event: false },
      { id: undefined, event: false },
      { id: 'c2', event: true },
    ],
    rest: 'id: c3\nevent: No',
  });
  expect(takeFrames('id: c3\nevent: NodeRetired\ndata: {}')).toEqual({ frames: [], rest: 'id: c3\nevent: NodeRetired\ndata: {}' });
});
