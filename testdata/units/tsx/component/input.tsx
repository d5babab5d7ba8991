import React, { useState } from "react";
import { Button } from "./ui";

interface Props {
  title: string;
  onSave?: (v: string) => void;
}

/** A form with one field. */
export function Form({ title, onSave }: Props) {
  const [value, setValue] = useState("");
  const submit = () => onSave?.(value);
  return (
    <div className="form">
      <h1>{title}</h1>
      <Input value={value} onChange={(e) => setValue(e.target.value)} />
      <Button onClick={submit}>Save</Button>
    </div>
  );
}

const Input = (props: { value: string; onChange: (e: any) => void }) => (
  <input {...props} />
);

export default class Page extends React.Component<Props> {
  render() {
    return <Form title="x" />;
  }
}
