/**
 * Step Functions names the parameters of `arn:aws:states:::aws-sdk:SERVICE:ACTION` tasks in the
 * Java SDK v2 style (`Uuid`); moto hands them to boto3 unchanged, under boto3's names (`UUID`),
 * with boto3's parameter validation off: a required parameter under the AWS name fails the task
 * with States.Runtime, an optional one would be dropped silently. The definition in the template
 * stays right for AWS; the local deployment renames what the table below lists.
 */

/** Per `service:action`, the AWS name -> the boto3 name, where they differ. Verified against moto 5.2.5. */
export const MOTO_PARAMETER_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'lambda:getEventSourceMapping': { Uuid: 'UUID' },
  'lambda:updateEventSourceMapping': { Uuid: 'UUID' },
  'lambda:deleteEventSourceMapping': { Uuid: 'UUID' },
  // The Step Functions API names its members in camelCase; the Java SDK v2 capitalises them.
  'sfn:sendTaskSuccess': { TaskToken: 'taskToken', Output: 'output' },
  'sfn:sendTaskFailure': { TaskToken: 'taskToken', Error: 'error', Cause: 'cause' },
  'sfn:sendTaskHeartbeat': { TaskToken: 'taskToken' },
};

const AWS_SDK_RESOURCE = /^arn:[\w-]+:states:::aws-sdk:([\w-]+):(\w+)(?:\.\w+)?$/;

type Json = Record<string, unknown>;

/** The definition (JSON text) with every aws-sdk task's parameters renamed for moto, in branches too. */
export function translateDefinitionForMoto(definition: string): string {
  const parsed = JSON.parse(definition) as Json;
  return JSON.stringify({ ...parsed, States: translateStates(parsed.States as Json) });
}

function translateStates(states: Json): Json {
  return Object.fromEntries(
    Object.entries(states).map(([name, state]) => [name, translateState(state as Json)]),
  );
}

function translateState(state: Json): Json {
  switch (state.Type) {
    case 'Task':
      return translateTask(state);
    case 'Parallel':
      return { ...state, Branches: (state.Branches as Json[]).map(translateMachine) };
    case 'Map':
      return {
        ...state,
        ...(state.Iterator ? { Iterator: translateMachine(state.Iterator as Json) } : {}),
        ...(state.ItemProcessor ? { ItemProcessor: translateMachine(state.ItemProcessor as Json) } : {}),
      };
    default:
      return state;
  }
}

function translateMachine(machine: Json): Json {
  return { ...machine, States: translateStates(machine.States as Json) };
}

function translateTask(task: Json): Json {
  const match = AWS_SDK_RESOURCE.exec(String(task.Resource));
  const names = match ? MOTO_PARAMETER_NAMES[`${match[1]}:${match[2]}`] : undefined;
  if (!names || !task.Parameters) return task;
  const parameters = Object.entries(task.Parameters as Json).map(([key, value]) => {
    // A `.$` suffix marks a JSONPath value; the name before it is the parameter's.
    const path = key.endsWith('.$') ? '.$' : '';
    const name = path ? key.slice(0, -path.length) : key;
    return [(names[name] ?? name) + path, value];
  });
  return { ...task, Parameters: Object.fromEntries(parameters) };
}
